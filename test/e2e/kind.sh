#!/usr/bin/env bash
# End-to-end test on a kind cluster: image, chart, a ScrapeEngine + WorkerPool, one call through the gateway.
# Needs Docker, kind, kubectl and helm. Not run on machines without a Docker engine (such as this project's CI).
# Nothing is downloaded by this script except the images kind and the cluster pull themselves.
set -euo pipefail

CLUSTER=${KIND_CLUSTER:-trawler-e2e}
NAMESPACE=trawler
IMAGE=trawler:e2e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if ! docker info >/dev/null 2>&1; then
  echo "kind.sh: no Docker engine here ('docker info' failed); the kind end-to-end test needs one. Skipping." >&2
  exit 1
fi
for tool in kind kubectl helm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "kind.sh: '$tool' is not installed. Install it first (kind: https://kind.sigs.k8s.io/docs/user/quick-start/#installation," >&2
    echo "  e.g. 'go install sigs.k8s.io/kind@latest'; kubectl and helm from your package manager)." >&2
    exit 1
  fi
done

cleanup() { kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "--- cluster, image"
kind create cluster --name "$CLUSTER" --wait 120s
docker build -f "$ROOT/charts/Dockerfile" -t "$IMAGE" "$ROOT"
kind load docker-image "$IMAGE" --name "$CLUSTER"

echo "--- NATS, PostgreSQL and a test target inside the cluster"
kubectl create namespace "$NAMESPACE"
kubectl -n "$NAMESPACE" apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: { name: nats }
spec:
  selector: { matchLabels: { app: nats } }
  template:
    metadata: { labels: { app: nats } }
    spec: { containers: [{ name: nats, image: "nats:2.10", args: ["-js"], ports: [{ containerPort: 4222 }] }] }
---
apiVersion: v1
kind: Service
metadata: { name: nats }
spec: { selector: { app: nats }, ports: [{ port: 4222 }] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: postgres }
spec:
  selector: { matchLabels: { app: postgres } }
  template:
    metadata: { labels: { app: postgres } }
    spec:
      containers:
        - name: postgres
          image: "postgres:16"
          env: [{ name: POSTGRES_HOST_AUTH_METHOD, value: trust }, { name: POSTGRES_DB, value: trawler }]
          ports: [{ containerPort: 5432 }]
---
apiVersion: v1
kind: Service
metadata: { name: postgres }
spec: { selector: { app: postgres }, ports: [{ port: 5432 }] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: target }
spec:
  selector: { matchLabels: { app: target } }
  template:
    metadata: { labels: { app: target } }
    spec: { containers: [{ name: nginx, image: "nginx:1.27-alpine", ports: [{ containerPort: 80 }] }] }
---
apiVersion: v1
kind: Service
metadata: { name: target }
spec: { selector: { app: target }, ports: [{ port: 80 }] }
YAML
kubectl -n "$NAMESPACE" rollout status deploy/nats deploy/postgres deploy/target --timeout=180s

echo "--- chart"
BOOTSTRAP_KEY="svc_live_$(LC_ALL=C tr -dc 'a-z2-7' </dev/urandom | head -c 52)"
helm install trawler "$ROOT/charts/trawler" -n "$NAMESPACE" \
  --set image.repository=trawler --set image.tag=e2e --set image.pullPolicy=Never \
  --set nats.url=nats://nats:4222 \
  --set database.url=postgres://postgres@postgres:5432/trawler \
  --set gateway.replicas=1 --set "gateway.env.TRAWLER_BOOTSTRAP_KEY=$BOOTSTRAP_KEY" \
  --set engines.fetch.enabled=false
kubectl -n "$NAMESPACE" rollout status deploy/trawler-operator deploy/trawler-gateway --timeout=180s

echo "--- a ScrapeEngine and a WorkerPool, applied as a user would"
kubectl -n "$NAMESPACE" apply -f - <<'YAML'
apiVersion: trawler.dev/v1alpha1
kind: ScrapeEngine
metadata: { name: fetch }
spec: { engine: fetch, image: "trawler:e2e", imagePullPolicy: Never }
---
apiVersion: trawler.dev/v1alpha1
kind: WorkerPool
metadata: { name: e2e }
spec: { engineRef: { name: fetch }, replicas: 1 }
YAML
for _ in $(seq 60); do
  kubectl -n "$NAMESPACE" get deploy/trawler-e2e-fetch >/dev/null 2>&1 && break
  sleep 2
done
kubectl -n "$NAMESPACE" rollout status deploy/trawler-e2e-fetch --timeout=180s
kubectl -n "$NAMESPACE" wait workerpool/e2e --for=condition=Available --timeout=120s

echo "--- one scrape through the gateway"
kubectl -n "$NAMESPACE" port-forward svc/trawler-gateway 18080:80 >/dev/null 2>&1 &
FORWARD=$!
trap 'kill $FORWARD 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 30); do curl -fsS http://127.0.0.1:18080/healthz >/dev/null 2>&1 && break; sleep 1; done
curl -fsS http://127.0.0.1:18080/v1/workers -H "Authorization: Bearer $BOOTSTRAP_KEY" | grep -q '"e2e"'
# The target is a cluster-internal address, which the SSRF policy refuses; a refusal with the SPEC's
# error code still proves the request crossed gateway -> NATS -> worker and back.
STATUS=$(curl -s -o /tmp/trawler-e2e-scrape.json -w '%{http_code}' http://127.0.0.1:18080/v1/scrape \
  -H "Authorization: Bearer $BOOTSTRAP_KEY" -H 'Content-Type: application/json' \
  -d '{"url":"http://target.trawler.svc.cluster.local/","engine":"fetch"}')
echo "scrape answered $STATUS: $(head -c 300 /tmp/trawler-e2e-scrape.json)"
[ "$STATUS" = 200 ] || grep -q 'ERR::' /tmp/trawler-e2e-scrape.json

echo "--- scale through the scale subresource"
kubectl -n "$NAMESPACE" scale workerpool/e2e --replicas=2
kubectl -n "$NAMESPACE" wait deploy/trawler-e2e-fetch --for=jsonpath='{.spec.replicas}'=2 --timeout=60s
echo "kind e2e: passed"
