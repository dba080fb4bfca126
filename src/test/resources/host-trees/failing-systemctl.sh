#!/bin/sh
# A systemctl that cannot reach systemd (as in a container without it): the inspection must fail, not guess.
echo "System has not been booted with systemd as init system (PID 1). Can't operate." >&2
echo "Failed to connect to bus: Host is down" >&2
exit 1
