#!/usr/bin/env bash
# The suite under load (`npm run test:loaded`): `npm test` while a CPU burner keeps both cores busy, as a store's CI
# or a newcomer's laptop is busy with other work. A test that only passes on a quiet machine waits for time instead
# of a condition; this run shows it. Arguments go to jest (`npm run test:loaded -- test/webhooks`), the environment
# passes through (`REQUIRE_POSTGRES=1 npm run test:loaded`). BURNERS sets how many busy processes run (default: one
# per core). The burners are always stopped, whatever ends the run; a signal to this script stops the tests too.
set -uo pipefail
cd "$(dirname "$0")/.."

BURNERS=${BURNERS:-$(node -p 'require("node:os").availableParallelism()')}
burner_pids=()
test_pid=

stop() {
  # The tests run in their own process group (npm does not pass a signal on to jest): stop all of it.
  if [ -n "$test_pid" ]; then kill -- -"$test_pid" 2>/dev/null; fi
  if [ ${#burner_pids[@]} -gt 0 ]; then kill "${burner_pids[@]}" 2>/dev/null; fi
  wait 2>/dev/null
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 "$BURNERS"); do
  # A busy loop at normal priority: the suite competes for the cores as it would beside another job.
  node -e 'for (;;) {}' &
  burner_pids+=("$!")
done
echo "test:loaded: ${BURNERS} CPU burner(s) running (pids ${burner_pids[*]})" >&2

# In the background, so that a signal reaches the traps at once rather than after the whole suite; in a session of
# its own, so that stopping it stops jest and its workers.
setsid npm test -- "$@" &
test_pid=$!
wait "$test_pid"
status=$?
test_pid=
exit "$status"
