#!/bin/sh
# Makes etcd's CA, its server certificate and the clients' certificate, and stores them as the
# Secrets the manifests mount: etcd-server-tls (etcd) and etcd-client-tls (registry, CoreDNS).
#   deploy/k8s/make-etcd-certs.sh            # make and create the Secrets (kubectl, namespace agent-reach)
#   deploy/k8s/make-etcd-certs.sh --out DIR  # only make the files in DIR
# Certificates are valid for 825 days; run it again (and restart etcd, registry, CoreDNS) to renew.
# With cert-manager, issue the same two certificates from one CA Issuer into these Secret names instead.
set -eu
NAMESPACE=${NAMESPACE:-agent-reach}
OUT=""
if [ "${1:-}" = "--out" ]; then OUT=$2; fi
DIR=${OUT:-$(mktemp -d)}
mkdir -p "$DIR"
cd "$DIR"

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out ca.key
openssl req -x509 -new -key ca.key -subj "/CN=agent-reach etcd CA" -days 825 \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -out ca.crt

issue() { # name, subject CN, extensions
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 825 -extfile "$1.ext" -out "$1.crt"
}
SVC="etcd.$NAMESPACE.svc"
issue server etcd "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:*.$SVC,DNS:*.$SVC.cluster.local,DNS:$SVC,DNS:*.etcd,DNS:localhost,IP:127.0.0.1"
issue client reach-client "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"

if [ -n "$OUT" ]; then
  echo "certificates in $DIR"
  exit 0
fi
kubectl -n "$NAMESPACE" create secret generic etcd-server-tls \
  --from-file=ca.crt=ca.crt --from-file=tls.crt=server.crt --from-file=tls.key=server.key
kubectl -n "$NAMESPACE" create secret generic etcd-client-tls \
  --from-file=ca.crt=ca.crt --from-file=tls.crt=client.crt --from-file=tls.key=client.key
rm -rf "$DIR"
