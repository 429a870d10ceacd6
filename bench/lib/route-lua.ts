/** How the route queries of one wrk run differ from each other. */
export type RouteQueryMix = 'repeated' | 'distinct';

/**
 * A wrk Lua script posting route queries round-robin over `capabilities` operations (`op_0`…).
 * `repeated`: the same 50 queries again and again (cache hits once warm); `distinct`: every query
 * carries its own `input_size`, so no two share a cache key.
 */
export function routeLua(capabilities: number, mix: RouteQueryMix): string {
  const size = mix === 'distinct' ? `',"constraints":{"input_size":' .. n .. '}}'` : `'}'`;
  return `local n = 0
request = function()
  n = n + 1
  local body = '{"operation":"op_' .. (n % ${capabilities}) .. '","domain":"bench"' .. ${size}
  return wrk.format("POST", "/v1/route", {["Content-Type"] = "application/json"}, body)
end
`;
}
