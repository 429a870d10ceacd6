import threading
import time
import unittest

from agent_reach import a2a
from agent_reach.tasks import TaskStore


class TaskStoreTest(unittest.TestCase):
    def test_a_request_id_seen_again_gets_the_first_task(self):
        store = TaskStore()
        first, replay = store.admit("r1", "c", "summarize", {})
        self.assertFalse(replay)
        again, replay = store.admit("r1", "c", "summarize", {})
        self.assertTrue(replay)
        self.assertIs(again, first)
        self.assertIs(store.get(first.id), first)

    def test_finished_tasks_expire_after_the_ttl_and_the_ledger_is_bounded(self):
        store = TaskStore(max_entries=2, ttl_s=0.05)
        task, _ = store.admit("r1", "c", "op", {})
        task.complete({"ok": 1})
        store.finished(task)
        time.sleep(0.08)
        self.assertIsNone(store.get_by_request("r1"))
        for i in range(3):
            store.admit(f"x{i}", "c", "op", {})
        self.assertIsNone(store.get_by_request("x0"))
        self.assertIsNotNone(store.get_by_request("x2"))

    def test_follow_streams_the_snapshot_then_every_event_to_the_end(self):
        task, _ = TaskStore().admit("r1", "c", "op", {})
        events = task.follow()
        self.assertEqual(next(events)["task"]["status"]["state"], a2a.SUBMITTED)

        def work():
            task.set_state(a2a.WORKING)
            task.complete("done")

        threading.Thread(target=work).start()
        rest = list(events)
        self.assertEqual([next(iter(e)) for e in rest], ["statusUpdate", "artifactUpdate", "statusUpdate"])
        self.assertEqual(rest[-1]["statusUpdate"]["status"]["state"], a2a.COMPLETED)
        self.assertFalse(task.fail("TIMEOUT", "late"), "an ended task never changes")

    def test_a_failure_carries_its_code_in_our_metadata(self):
        task, _ = TaskStore().admit("r1", "c", "op", {})
        task.fail("VALIDATION_FAILED", "input.text: required")
        status = task.snapshot()["status"]
        self.assertEqual(status["state"], a2a.FAILED)
        self.assertEqual(status["message"]["metadata"][a2a.REACH_EXTENSION], {"code": "VALIDATION_FAILED", "retryable": False})


if __name__ == "__main__":
    unittest.main()
