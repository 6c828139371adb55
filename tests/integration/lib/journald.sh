# journald.sh — sourced by tests that read the journal back: where journald
# runs, the system journal is used.  Elsewhere (containers, CI), as root,
# the sourcing script re-runs itself in a private mount namespace with a
# tmpfs over /run and its own systemd-journald, so nothing outside sees it.
# Sets JPID (the private journald, stopped on exit) and exits 77 where
# neither is possible.  Source it before anything that sets a trap.
command -v journalctl >/dev/null || { echo "SKIP: journalctl is not installed"; exit 77; }
if [ ! -S /run/systemd/journal/socket ] && [ -z "${BW_JOURNAL_PRIVATE:-}" ]; then
        journald=/lib/systemd/systemd-journald
        [ "$(id -u)" = 0 ] && [ -x $journald ] && command -v unshare >/dev/null ||
                { echo "SKIP: journald is not running (and cannot start a private one)"; exit 77; }
        BW_JOURNAL_PRIVATE=1 exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
JPID=
if [ -n "${BW_JOURNAL_PRIVATE:-}" ]; then
        mount -t tmpfs tmpfs /run || { echo "SKIP: cannot mount a private /run"; exit 77; }
        # no persistent journal either: nothing of this test outlives it
        [ -d /var/log/journal ] && mount -t tmpfs tmpfs /var/log/journal
        /lib/systemd/systemd-journald >/dev/null 2>&1 &
        JPID=$!
        trap 'kill $JPID 2>/dev/null; wait $JPID 2>/dev/null' EXIT
        for _ in $(seq 100); do
                [ -S /run/systemd/journal/socket ] && break
                sleep 0.05
        done
fi
