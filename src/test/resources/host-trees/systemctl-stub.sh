#!/bin/sh
# Stands in for `systemctl show --no-pager -p PROPERTIES UNIT` in the host-tree tests. Each case directory links
# this script as its `systemctl` and keeps one file per unit under units/, holding what `systemctl show` printed
# on such a host. A unit without a file answers as systemd does for a unit it does not know (exit 0).
for last; do :; done
dir=$(dirname "$0")
if [ -f "$dir/units/$last" ]; then
  cat "$dir/units/$last"
else
  printf 'LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\nInactiveEnterTimestampMonotonic=0\n'
fi
