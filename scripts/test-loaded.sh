#!/usr/bin/env bash
# The suite under load (`npm run test:loaded`): `npm test` while a CPU burner keeps both cores busy, as a store's CI
# or a newcomer's laptop is busy with other work. A test that only passes on a quiet machine waits for time instead
# of a condition; this run shows it. Arguments go to jest (`npm run test:loaded -- test/webhooks`), the environment
# passes through (`REQUIRE_POSTGRES=1 npm run test:loaded`). BURNERS sets how many busy processes run (default: one
# per core). The burners are always stopped, whatever ends the run.
set -euo pipefail
cd "$(dirname "$0")/.."

BURNERS=${BURNERS:-$(node -p 'require("node:os").availableParallelism()')}
burner_pids=()

stop_burners() {
  if [ ${#burner_pids[@]} -gt 0 ]; then
    kill "${burner_pids[@]}" 2>/dev/null || true
    wait "${burner_pids[@]}" 2>/dev/null || true
  fi
}
trap stop_burners EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 "$BURNERS"); do
  # A busy loop at normal priority: the suite competes for the cores as it would beside another job.
  node -e 'for (;;) {}' &
  burner_pids+=("$!")
done
echo "test:loaded: ${BURNERS} CPU burner(s) running (pids ${burner_pids[*]})" >&2

npm test -- "$@"
