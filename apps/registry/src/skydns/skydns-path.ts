/** The etcd path of a DNS name, as CoreDNS's etcd plugin computes it (`msg.Path`): labels reversed under the prefix. */
export function skydnsPath(name: string, prefix = 'skydns'): string {
  const labels = name
    .replace(/\.$/, '')
    .split('.')
    .filter((label) => label.length > 0)
    .reverse();
  return ['', prefix.replace(/^\/+|\/+$/g, ''), ...labels].join('/');
}

/** The DNS name (fully qualified, lower-case as stored) of an etcd key, per CoreDNS's `msg.Domain` rule. */
export function skydnsName(key: string): string {
  const parts = key.split('/');
  if (parts[parts.length - 1] === '') parts.pop();
  // Drop the leading empty element and the prefix itself, then reverse what remains.
  const labels = parts.slice(2).reverse();
  return `${labels.join('.')}.`;
}
