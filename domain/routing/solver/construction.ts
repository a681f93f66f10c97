// Construction by regret-2 insertion (Potvin and Rousseau; Ropke and Pisinger's ALNS uses it as a
// repair): each step inserts the job whose best place beats its best place in any other route by
// the most, so jobs with few good options are placed before the easy ones take their room. The
// best place of each job in each route is cached and only the route that changed is re-priced.
import type { RouteState } from './state';

export function regretInsertion(state: RouteState, jobs: readonly number[]): void {
  const ws = state.ws;
  const crews = ws.crewCount;
  const pending = jobs.slice();
  const bestDelta = new Float64Array(pending.length * crews);
  const bestPosition = new Int32Array(pending.length * crews);
  const price = (slot: number, crew: number): void => {
    state.bestInsertion(pending[slot]!, crew, Infinity, null, 0);
    const best = state.foundPosition < 0 ? Infinity : state.foundDelta;
    const where = state.foundPosition;
    bestDelta[slot * crews + crew] = best;
    bestPosition[slot * crews + crew] = where;
  };
  for (let slot = 0; slot < pending.length; slot++) for (let crew = 0; crew < crews; crew++) price(slot, crew);
  const live = pending.map(() => true);
  let remaining = pending.length;
  while (remaining > 0) {
    let chosen = -1;
    let chosenCrew = -1;
    let chosenRegret = -Infinity;
    let chosenBest = 0;
    for (let slot = 0; slot < pending.length; slot++) {
      if (!live[slot]) continue;
      let best = Infinity;
      let second = Infinity;
      let bestCrew = -1;
      for (let crew = 0; crew < crews; crew++) {
        const delta = bestDelta[slot * crews + crew]!;
        if (delta < best) {
          second = best;
          best = delta;
          bestCrew = crew;
        } else if (delta < second) second = delta;
      }
      if (bestCrew < 0) {
        live[slot] = false;
        remaining--;
        state.unassigned.push(pending[slot]!);
        continue;
      }
      const regret = second === Infinity ? Number.MAX_VALUE : second - best;
      // Ties (typically between identical empty routes) go to the costliest job: the farthest
      // customer seeds a new route, as in Solomon's own insertion heuristic.
      if (regret > chosenRegret || (regret === chosenRegret && best > chosenBest)) {
        chosen = slot;
        chosenCrew = bestCrew;
        chosenRegret = regret;
        chosenBest = best;
      }
    }
    if (chosen < 0) break;
    state.insert(pending[chosen]!, chosenCrew, bestPosition[chosen * crews + chosenCrew]!);
    live[chosen] = false;
    remaining--;
    for (let slot = 0; slot < pending.length; slot++) if (live[slot]) price(slot, chosenCrew);
  }
}
