#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ordoctl against /dev/ordo: commands, output and exit codes (TAP).
cd "$(dirname "$0")/../.." || exit 1
ctl=tools/ordoctl
n=0
fail=0

# check NAME WANT_STATUS WANT_STDOUT CMD... - run CMD, compare.
check() {
	local name=$1 want=$2 out=$3 got rc
	shift 3
	got=$("$@" 2>/dev/null)
	rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && { [ "$out" = "*" ] || [ "$got" = "$out" ]; }; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (status $rc, want $want; output '$got')"
		fail=1
	fi
}

echo "TAP version 13"
check "retrain of an empty store is 1" 1 "" $ctl retrain
check "del of absent key is 1" 1 "" $ctl del 77
check "put" 0 "" $ctl put 77 hello
check "get prints the value" 0 "hello" $ctl get 77
check "insert of present key is 1" 1 "" $ctl insert 77 x
check "update" 0 "" $ctl update 0x4d world
check "hex keys" 0 "world" $ctl get 0x4D
check "update of absent key is 1" 1 "" $ctl update 78 x
check "insert" 0 "" $ctl insert 18446744073709551615 max
check "scan prints KEY VALUE lines" 0 "$(printf '77 world\n18446744073709551615 max')" $ctl scan 0 10
check "binary value" 0 "" $ctl put 5 "$(printf 'a\001b\\')"
check "get escapes binary bytes" 0 'a\x01b\x5c' $ctl get 5
check "value longer than value_size is usage" 2 "" $ctl put 1 0123456789
check "bad key is usage" 2 "" $ctl get 12x
check "negative key is usage" 2 "" $ctl get -1
check "key past u64 is usage" 2 "" $ctl get 18446744073709551616
check "unknown command is usage" 2 "" $ctl frobnicate
check "missing argument is usage" 2 "" $ctl put 1
check "scan count 0 is usage" 2 "" $ctl scan 0 0
check "load without --dist is usage" 2 "" $ctl load --count 10
check "load of unknown dist is usage" 2 "" $ctl load --count 10 --dist zipf
check "bad device is error 3" 3 "" $ctl -s /dev/null get 1
check "stats" 0 "*" $ctl stats
check "stats shows keys" 0 "keys                     3" bash -c "$ctl stats | grep '^keys '"
check "retrain" 0 "*" $ctl retrain
check "del" 0 "" $ctl del 77
check "get after del is 1" 1 "" $ctl get 77
$ctl del 5 >/dev/null; $ctl del 18446744073709551615 >/dev/null
echo "1..$n"
exit $fail
