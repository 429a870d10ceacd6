import json
import tempfile
import unittest
from pathlib import Path

from agent_reach.declaration import load_declaration, parse_declaration, published_capabilities
from agent_reach.errors import ReachError
from agent_reach.jsonschema import SchemaError, validate

SEED = {
    "agent_name": "summarizer-v2",
    "domain": "text_processing",
    "capabilities": {
        "summarize": {
            "input": ["text", "max_length"],
            "output": ["summary"],
            "constraints": {"max_tokens": 5000, "response_time_sec": 2},
        }
    },
    "priority": 80,
    "idempotent": True,
}


def invalid_field(raw) -> str:
    with unittest.TestCase().assertRaises(ReachError) as caught:
        parse_declaration(raw)
    assert caught.exception.code == "INVALID_DECLARATION"
    return caught.exception.data["field"]


class DeclarationTest(unittest.TestCase):
    def test_the_seed_file_is_valid_and_gets_the_schema_defaults(self):
        declaration = parse_declaration(SEED)
        self.assertEqual(declaration["version"], "1")
        self.assertFalse(declaration["substitutable"])
        self.assertEqual(declaration["capabilities"]["summarize"]["serves"], [])
        self.assertEqual(published_capabilities(declaration), ["summarize"])
        self.assertNotIn("version", SEED, "the input is not changed")

    def test_each_bad_field_is_named(self):
        self.assertEqual(invalid_field({**SEED, "agent_name": "Bad_Name"}), "agent_name")
        self.assertEqual(invalid_field({**SEED, "priority": 101}), "priority")
        self.assertEqual(invalid_field({**SEED, "colour": "red"}), "colour")
        self.assertEqual(invalid_field({k: v for k, v in SEED.items() if k != "domain"}), "domain")
        bad_op = {**SEED, "capabilities": {"summarize": {"constraints": {"response_time_sec": -1}}}}
        self.assertEqual(invalid_field(bad_op), "capabilities.summarize.constraints.response_time_sec")
        self.assertEqual(invalid_field({**SEED, "capabilities": {"Summarize": {}}}), "capabilities.Summarize")
        self.assertEqual(invalid_field({**SEED, "capabilities": {}}), "capabilities")
        self.assertEqual(invalid_field([]), "(root)")

    def test_a_file_that_is_not_json_or_missing_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "declaration.json"
            path.write_text("{not json")
            with self.assertRaises(ReachError) as caught:
                load_declaration(path)
            self.assertEqual(caught.exception.data["field"], "(file)")
            with self.assertRaises(ReachError) as caught:
                load_declaration(Path(tmp) / "absent.json")
            self.assertIn("cannot read", caught.exception.message)
            path.write_text(json.dumps(SEED))
            with self.assertRaises(ReachError) as caught:
                load_declaration(path, expected_agent_name="translator")
            self.assertEqual(caught.exception.data["field"], "agent_name")

    def test_an_unknown_schema_keyword_fails_loudly(self):
        with self.assertRaises(SchemaError):
            validate({}, {"type": "object", "if": {}})


if __name__ == "__main__":
    unittest.main()
