/**
 * Runs `attempt` until it passes, at most `tries` times. For comparisons between two views of a
 * zone whose weights the leader republishes every few seconds: a publication that lands between
 * the two reads is a race, not a defect; a real difference fails every try.
 */
export async function untilStable<T>(attempt: () => Promise<T>, tries = 3, pauseMs = 300): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
