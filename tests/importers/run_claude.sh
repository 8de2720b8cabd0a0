#!/bin/bash
# Run the real `claude -p` once against the stand-in, inside a user+network namespace with only
# loopback. Usage: run_claude.sh CLAUDE WORKDIR SCRIPT.json  (WORKDIR gets home/, ws/, log)
set -u
CLAUDE=$1 W=$2 SCRIPT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
export CLAUDE W SCRIPT HERE
exec unshare -rn bash -c '
  ip link set lo up || exit 97  # iproute2; without loopback the stand-in is unreachable
  python3 "$HERE/standin_anthropic.py" "$SCRIPT" "$W/requests.jsonl" "$W/port" &
  SP=$!
  for i in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
  export HOME="$W/home" CLAUDE_CONFIG_DIR="$W/home/.claude" ANTHROPIC_API_KEY=dummy \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$W/port")" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
  cd "$W/ws"
  timeout 120 "$CLAUDE" -p "Run the commands." --output-format stream-json --verbose \
    > "$W/stdout.jsonl" 2> "$W/stderr.txt" < /dev/null
  rc=$?
  kill $SP
  exit $rc
'
