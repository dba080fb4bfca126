#!/bin/sh
# stand-in for the installed script
exit 0
