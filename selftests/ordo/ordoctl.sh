#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ordoctl on both backends (TAP): the local device /dev/ordo and the guest's
# own RDMA server (rdma://192.0.2.1).  Every command, its output and exit
# codes, --file with raw bytes, --mode for every mode, the access token from
# --token FILE and $ORDO_TOKEN (set for a while through the module
# parameter, then restored), and the example program of Documentation/.
# Needs an empty store; leaves it empty.
cd "$(dirname "$0")/../.." || exit 1
# Each wait for the server is bounded; a slow (debug) kernel scales it.
ctl="tools/ordoctl --timeout $((5000 * ${ORDO_TIME_SCALE:-1}))"
hello=build/examples/ordo_hello
host=${ORDO_TEST_RDMA_HOST:-192.0.2.1}
rdma=rdma://$host
tokparam=/sys/module/ordo/parameters/token
tmp=$(mktemp -d) || exit 1
n=0
fail=0

# tap STATUS NAME [DETAIL] - one result line.
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2${3:+ ($3)}"
		fail=1
	fi
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# check NAME WANT_STATUS WANT_STDOUT CMD... - run CMD, compare its status
# and its stdout ("*": any).
check() {
	local name=$1 want=$2 out=$3 got rc
	shift 3
	got=$("$@" 2>"$tmp/stderr")
	rc=$?
	if [ "$rc" = "$want" ] && { [ "$out" = "*" ] || [ "$got" = "$out" ]; }; then
		tap 0 "$name"
	else
		tap 1 "$name" "status $rc, want $want; output '$got'; stderr '$(head -c 300 "$tmp/stderr")'"
	fi
}

# One-line messages: a failing ordoctl says exactly one line on stderr.
check_msg() {
	local name=$1 want=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   [ "${err#ordoctl: }" != "$err" ]; then
		tap 0 "$name"
	else
		tap 1 "$name" "status $rc, want $want; stderr '$err'"
	fi
}

# bytes FILE OCTAL... - write the bytes given in octal.
bytes() {
	local f=$1 b
	shift
	: > "$f"
	for b in "$@"; do
		printf "\\$b" >> "$f"
	done
}

# pattern FILE LEN - LEN bytes: 0, then i * 37 + 1 mod 256 (a newline, 0xff
# and more zeros among them), and 0 last.
pattern() {
	local i b=()

	for ((i = 0; i < $2; i++)); do
		if [ $i = 0 ] || [ $i = $(($2 - 1)) ]; then
			b+=(000)
		else
			b+=("$(printf '%03o' $(((i * 37 + 1) % 256)))")
		fi
	done
	bytes "$1" "${b[@]}"
}

# get_cmp URI KEY FILE - get KEY --file, then compare with FILE.
get_cmp() {
	rm -f "$tmp/out"
	$ctl -s "$1" get "$2" --file "$tmp/out" && cmp -s "$tmp/out" "$3"
}

# get_stdout_cmp URI KEY FILE - get KEY --file -, compare with FILE.
get_stdout_cmp() {
	$ctl -s "$1" get "$2" --file - > "$tmp/out" && cmp -s "$tmp/out" "$3"
}

# put_stdin URI KEY FILE - put KEY --file - < FILE.
put_stdin() {
	$ctl -s "$1" put "$2" --file - < "$3"
}

# get_missing_untouched URI KEY - get --file of an absent key is 1 and
# does not create the file.
get_missing_untouched() {
	local rc

	rm -f "$tmp/absent"
	$ctl -s "$1" get "$2" --file "$tmp/absent" 2>/dev/null
	rc=$?
	[ ! -e "$tmp/absent" ] || return 9
	return $rc
}

# field URI NAME [OPTION...] - the value of NAME in ordoctl stats.
field() {
	local uri=$1 name=$2

	shift 2
	$ctl -s "$uri" "$@" stats | awk -v k="$name" '$1 == k { print $2 }'
}

# env_mode MODE URI [OPTION...] - client.mode of stats under ORDO_MODE=MODE.
env_mode() {
	ORDO_MODE=$1 field "$2" client.mode "${@:3}"
}

# loaded_value URI - the first key's value is its 8 little-endian bytes.
loaded_value() {
	local k le i

	k=$($ctl -s "$1" scan 0 1 | cut -d' ' -f1)
	[ -n "$k" ] || return 1
	$ctl -s "$1" get "$k" --file "$tmp/out" || return 1
	le=$(printf '%016x' "$k")
	for ((i = 14; i >= 0; i -= 2)); do
		printf '%s' "${le:i:2}"
	done > "$tmp/want"
	[ "$(od -An -tx1 -N8 "$tmp/out" | tr -d ' \n')" = "$(cat "$tmp/want")" ]
}

# load_line URI N SEED - ordoctl load's report: the model it trained, or
# (a server that does not take RETRAIN over the wire) that it did not.
load_line() {
	local tail=', model version [1-9][0-9]*'

	case $1 in
	rdma://*) tail='; the server retrains the model itself' ;;
	esac
	$ctl -s "$1" load --count "$2" --dist uniform --seed "$3" |
		grep -Eq "^loaded $2 uniform keys \\(seed $3\\)$tail$"
}

# empty_store - delete every key (through the local device).
empty_store() {
	$ctl scan 0 1000000 2>/dev/null | while read -r k _; do
		$ctl del "$k" >/dev/null 2>&1
	done
}

# suite NAME URI - everything ordoctl does, against one store.
suite() {
	local t=$1 uri=$2 c vs vmax long scan_out m i retrain=0 \
		retrain_empty=1

	c="$ctl -s $uri"
	# RETRAIN is an act of the server host: over RDMA it is "not offered".
	if [ "$t" = rdma ]; then
		retrain=3
		retrain_empty=3
	fi
	vs=$($c stats 2>/dev/null | awk '$1 == "value_size" { print $2 }')
	tap "$([ -n "$vs" ]; echo $?)" "[$t] stats gives value_size"
	[ -n "$vs" ] || vs=8
	vmax=$($c stats 2>/dev/null | awk '$1 == "value_max" { print $2 }')
	tap "$([ -n "$vmax" ]; echo $?)" "[$t] stats gives value_max"
	[ -n "$vmax" ] || vmax=1048576
	long=$(head -c $((vs + 1)) /dev/zero | tr '\0' x)

	check "[$t] retrain of an empty store is $retrain_empty" \
		$retrain_empty "" $c retrain
	check_msg "[$t] and says why in one line" $retrain_empty $c retrain
	check "[$t] del of absent key is 1" 1 "" $c del 77
	check "[$t] get of absent key is 1" 1 "" $c get 77
	check_msg "[$t] a missing key is one line on stderr" 1 $c get 77
	check "[$t] put" 0 "" $c put 77 hello
	check "[$t] get prints the value" 0 "hello" $c get 77
	check "[$t] insert of present key is 1" 1 "" $c insert 77 x
	check_msg "[$t] an existing key is one line on stderr" 1 $c insert 77 x
	check "[$t] update" 0 "" $c update 0x4d world
	check "[$t] hex keys" 0 "world" $c get 0x4D
	check "[$t] update of absent key is 1" 1 "" $c update 78 x
	check "[$t] insert" 0 "" $c insert 18446744073709551615 max
	scan_out=$(printf '77 world\n18446744073709551615 max')
	check "[$t] scan prints KEY VALUE lines" 0 "$scan_out" $c scan 0 10
	check "[$t] scan from a later key" 0 "18446744073709551615 max" \
		$c scan 78 5
	check "[$t] scan COUNT limits" 0 "77 world" $c scan 0 1
	check "[$t] binary value" 0 "" $c put 5 "$(printf 'a\001b\\')"
	check "[$t] get escapes binary bytes" 0 'a\x01b\x5c' $c get 5
	if [ "$t" = local ]; then
		# Over RDMA long writes wait for the wire's staged upload.
		check "[$t] a value longer than value_size" 0 "" \
			$c put 1 "$long"
		check "[$t] get prints it" 0 "$long" $c get 1
		check "[$t] scan prints it whole" 0 "1 $long" $c scan 1 1
	fi
	check "[$t] an empty value is a value" 0 "" $c put 1 ""
	check "[$t] get prints it as an empty line" 0 "" $c get 1
	check "[$t] and scan as KEY and a space" 0 "1 " $c scan 1 1
	check "[$t] del of the empty value" 0 "" $c del 1
	check "[$t] bad key is usage" 2 "" $c get 12x
	check "[$t] key with a blank is usage" 2 "" $c get " 5"
	check "[$t] a leading 0 is decimal, not octal" 0 "" $c put 010 ten
	check "[$t] so key 10 holds it" 0 "ten" $c get 10
	check "[$t] and key 8 does not" 1 "" $c get 8
	check "[$t] del of key 010" 0 "" $c del 010
	check "[$t] negative key is usage" 2 "" $c get -1
	check "[$t] key past u64 is usage" 2 "" $c get 18446744073709551616
	check "[$t] unknown command is usage" 2 "" $c frobnicate
	check_msg "[$t] a usage error is one line on stderr" 2 $c frobnicate
	check "[$t] missing argument is usage" 2 "" $c put 1
	check "[$t] extra argument is usage" 2 "" $c del 1 2
	check "[$t] scan count 0 is usage" 2 "" $c scan 0 0
	check "[$t] stats takes no argument" 2 "" $c stats 1
	check "[$t] load without --dist is usage" 2 "" $c load --count 10
	check "[$t] load of unknown dist is usage" 2 "" \
		$c load --count 10 --dist zipf
	check "[$t] stats" 0 "*" $c stats
	$c stats 2>&1 | sed 's/^/# /'
	check "[$t] stats shows keys" 0 3 field "$uri" keys
	check "[$t] stats shows value_size" 0 "$vs" field "$uri" value_size
	check "[$t] stats shows the model" 0 "*" field "$uri" model.version
	check "[$t] stats shows the URI" 0 "$uri" field "$uri" client.uri
	check "[$t] stats shows the handle's counters" 0 "*" \
		field "$uri" client.round_trips
	check "[$t] stats shows the default mode" 0 learned \
		field "$uri" client.mode
	check "[$t] retrain is $retrain" $retrain "*" $c retrain

	# --mode and $ORDO_MODE: every mode reads the same store.
	scan_out='5 a\x01b\x5c'$'\n'$scan_out
	i=0
	for m in learned model-only walk rpc; do
		i=$((i + 1))
		check "[$t] --mode $m: get" 0 world $c --mode "$m" get 77
		check "[$t] --mode $m: scan" 0 "$scan_out" \
			$c --mode "$m" scan 0 10
		check "[$t] --mode $m: get of absent key is 1" 1 "" \
			$c --mode "$m" get 78
		check "[$t] --mode $m: put" 0 "" $c --mode "$m" put 300 "m$i"
		check "[$t] --mode $m: get after put" 0 "m$i" \
			$c --mode "$m" get 300
		check "[$t] --mode $m: stats shows it" 0 "$m" \
			field "$uri" client.mode --mode "$m"
		check "[$t] ORDO_MODE=$m: stats shows it" 0 "$m" \
			env_mode "$m" "$uri"
		check "[$t] --mode $m: del" 0 "" $c --mode "$m" del 300
	done
	check "[$t] --mode wins over ORDO_MODE" 0 rpc \
		env_mode walk "$uri" --mode rpc
	check "[$t] unknown --mode is usage" 2 "" $c --mode fast get 77
	check "[$t] unknown ORDO_MODE is usage" 2 "" \
		env ORDO_MODE=fast $c get 77

	# --file: raw bytes both ways, zero bytes included.
	pattern "$tmp/full" "$vs"
	bytes "$tmp/short" 141 000 142
	head -c $((vmax + 1)) /dev/urandom > "$tmp/long"
	: > "$tmp/empty"
	check "[$t] put --file of value_size bytes" 0 "" \
		$c put 400 --file "$tmp/full"
	check "[$t] get --file gives the same bytes" 0 "" \
		get_cmp "$uri" 400 "$tmp/full"
	check "[$t] get --file - writes them to stdout" 0 "" \
		get_stdout_cmp "$uri" 400 "$tmp/full"
	check "[$t] put --file - reads stdin" 0 "" \
		put_stdin "$uri" 401 "$tmp/short"
	check "[$t] a short value comes back with its length" 0 "" \
		get_cmp "$uri" 401 "$tmp/short"
	check "[$t] get prints it with the zero escaped" 0 'a\x00b' \
		$c get 401
	check "[$t] put --file=F" 0 "" $c put 402 --file="$tmp/short"
	check "[$t] get KEY --file=F" 0 "" get_cmp "$uri" 402 \
		"$tmp/short"
	check "[$t] put --file longer than value_max is usage" 2 "" \
		$c put 400 --file "$tmp/long"
	check_msg "[$t] and says so in one line" 2 \
		$c put 400 --file "$tmp/long"
	check "[$t] which left the value alone" 0 "" \
		get_cmp "$uri" 400 "$tmp/full"
	check "[$t] put --file of an empty file stores an empty value" 0 "" \
		$c put 404 --file "$tmp/empty"
	check "[$t] get --file gives an empty file" 0 "" \
		get_cmp "$uri" 404 "$tmp/empty"
	check "[$t] del of the empty value" 0 "" $c del 404
	check "[$t] put --file of a missing file is usage" 2 "" \
		$c put 400 --file "$tmp/nonexistent"
	check "[$t] VALUE and --file together is usage" 2 "" \
		$c put 400 x --file "$tmp/full"
	check "[$t] --file without F is usage" 2 "" $c get 400 --file
	check "[$t] del does not take --file" 2 "" $c del 400 --file x
	check "[$t] get --file of absent key is 1, F untouched" 1 "" \
		get_missing_untouched "$uri" 403
	check "[$t] get --file into a missing directory is usage" 2 "" \
		$c get 400 --file "$tmp/no/such/file"
	check "[$t] insert --file of present key is 1" 1 "" \
		$c insert 400 --file "$tmp/short"
	check "[$t] update --file of absent key is 1" 1 "" \
		$c update 403 --file "$tmp/short"
	check "[$t] insert --file" 0 "" $c insert 403 --file "$tmp/full"
	check "[$t] update --file" 0 "" $c update 403 --file "$tmp/short"
	check "[$t] update --file took" 0 "" \
		get_cmp "$uri" 403 "$tmp/short"
	check "[$t] -- ends options: the value '--file'" 0 "" \
		$c put 404 -- --file
	check "[$t] get of it" 0 "--file" $c get 404
	for i in 400 401 402 403 404; do
		$c del $i >/dev/null 2>&1
	done

	check "[$t] del" 0 "" $c del 77
	check "[$t] get after del is 1" 1 "" $c get 77
	$c del 5 >/dev/null 2>&1
	$c del 18446744073709551615 >/dev/null 2>&1
	check "[$t] the store is empty again" 0 "" $c scan 0 100

	# Long values, raw bytes both ways (RDMA writes them after the
	# wire's staged upload; the [both] checks read them over RDMA).
	if [ "$t" = local ]; then
		for i in $((vs + 1)) 4096 65536 "$vmax"; do
			head -c "$i" /dev/urandom > "$tmp/v$i"
			check "[$t] put --file of $i bytes" 0 "" \
				$c put 500 --file "$tmp/v$i"
			check "[$t] get --file gives them back" 0 "" \
				get_cmp "$uri" 500 "$tmp/v$i"
			check "[$t] get --file - too" 0 "" \
				get_stdout_cmp "$uri" 500 "$tmp/v$i"
		done
		check "[$t] del of a long value" 0 "" $c del 500
		check "[$t] get after del is 1" 1 "" $c get 500
	fi

	# load, on the empty store.
	check "[$t] load" 0 "" load_line "$uri" 64 7
	check "[$t] load stored the keys" 0 64 field "$uri" keys
	if [ "$t" = local ]; then
		check "[$t] load trained the model" 0 64 field "$uri" model.keys
	fi
	check "[$t] load's values are the keys' bytes" 0 "" \
		loaded_value "$uri"
	check "[$t] load again, same seed" 0 "" load_line "$uri" 64 7
	check "[$t] the same keys" 0 64 field "$uri" keys
	check "[$t] scan of every loaded key" 0 64 \
		bash -c "$c scan 0 1000 | wc -l"
	check "[$t] retrain of a loaded store is $retrain" $retrain "*" \
		$c retrain
	empty_store
	check "[$t] emptied" 0 0 field "$uri" keys
}

echo "TAP version 13"
trap 'rm -rf "$tmp"' EXIT

check "help is 0" 0 "*" $ctl --help
check "no command is usage" 2 "" $ctl
check "unknown option is usage" 2 "" $ctl --frob get 1
check "-s without URI is usage" 2 "" $ctl -s
check "--timeout 0 is usage" 2 "" $ctl --timeout 0 get 1
check "--timeout past an hour is usage" 2 "" $ctl --timeout 3600001 get 1
check "--timeout of a non-number is usage" 2 "" $ctl --timeout 5s get 1
check "--timeout -1 is usage" 2 "" $ctl -T -1 get 1
check "a URI of neither form is usage" 2 "" $ctl -s ordo get 1
check "rdma:// without host is usage" 2 "" $ctl -s rdma:// get 1
check "rdma:// with port 0 is usage" 2 "" $ctl -s "$rdma:0" get 1
check "rdma:// with port 65536 is usage" 2 "" $ctl -s "$rdma:65536" get 1
check "rdma:// with an empty port is usage" 2 "" $ctl -s "$rdma:" get 1
check "rdma://[ without ] is usage" 2 "" $ctl -s "rdma://[::1" get 1
check "bad device is error 3" 3 "" $ctl -s /dev/null get 1
check_msg "and one line on stderr" 3 $ctl -s /dev/null get 1
check "missing device is error 3" 3 "" $ctl -s /dev/nonexistent get 1
check "ORDO_URI names the store" 3 "" env ORDO_URI=/dev/null $ctl get 1
check "-s wins over ORDO_URI" 1 "" \
	env ORDO_URI=/dev/null $ctl -s /dev/ordo get 1

suite local /dev/ordo
suite rdma "$rdma"

check "[rdma] the port given explicitly" 1 "" $ctl -s "$rdma:7471" get 1

check "[rdma] a port nobody listens on is 3" 3 "" \
	$ctl -s "rdma://$host:7472" get 1
check "[rdma] an unreachable host is 3" 3 "" \
	$ctl -s rdma://192.0.2.99 get 1

# Across backends: what one writes, the other reads.
check "[both] put over rdma" 0 "" $ctl -s "$rdma" put 600 across
check "[both] get locally" 0 across $ctl get 600
check "[both] del locally" 0 "" $ctl del 600
check "[both] gone over rdma" 1 "" $ctl -s "$rdma" get 600

# Long values written locally, read over RDMA: the leaf, then one READ of
# the extent, in every mode.
for i in 4096 1048576; do
	head -c "$i" /dev/urandom > "$tmp/x$i"
	check "[both] put --file of $i bytes locally" 0 "" \
		$ctl put 601 --file "$tmp/x$i"
	for m in learned model-only walk; do
		check "[both] get --file over rdma, --mode $m" 0 "" \
			bash -c "$ctl -s $rdma --mode $m get 601 --file $tmp/out &&
				 cmp -s $tmp/out $tmp/x$i"
	done
done
check "[both] del of the long value" 0 "" $ctl del 601

# The access token.  The parameter is write-only: find out whether the
# server wants one now (an empty token works when it does not), set one,
# test, put the old state back.
printf 'sesame-012345678\n' > "$tmp/tok.nl"
printf 'sesame-012345678' > "$tmp/tok"
printf 'open sesame-012345678-0123456' > "$tmp/tok.bad"
: > "$tmp/tok.empty"
head -c 41 /dev/zero | tr '\0' t > "$tmp/tok.long"
orig=
if [ ! -w "$tokparam" ]; then
	why="no writable $tokparam"
elif env -u ORDO_TOKEN $ctl -s "$rdma" --token "$tmp/tok.empty" stats \
	>/dev/null 2>&1; then
	why=
elif [ -n "${ORDO_TOKEN:-}" ] && $ctl -s "$rdma" stats >/dev/null 2>&1; then
	orig=$ORDO_TOKEN
	why=
else
	why="the server is not reachable with or without a token"
fi
if [ -n "$why" ]; then
	skip "[token] --token FILE and ORDO_TOKEN" "$why"
else
	restore() {
		if [ -n "$orig" ]; then
			printf '%s' "$orig" > "$tokparam"
		else
			echo > "$tokparam"
		fi
	}
	trap 'restore; rm -rf "$tmp"' EXIT
	echo sesame-012345678 > "$tokparam"
	tap $? "[token] set a token through $tokparam"
	check "[token] no token is 3" 3 "" \
		env -u ORDO_TOKEN $ctl -s "$rdma" get 1
	check_msg "[token] and one line on stderr" 3 \
		env -u ORDO_TOKEN $ctl -s "$rdma" get 1
	check "[token] --token FILE" 1 "" \
		env -u ORDO_TOKEN $ctl -s "$rdma" --token "$tmp/tok" get 1
	check "[token] --token FILE, trailing newline stripped" 1 "" \
		env -u ORDO_TOKEN $ctl -s "$rdma" --token "$tmp/tok.nl" get 1
	check "[token] wrong --token is 3" 3 "" \
		env -u ORDO_TOKEN $ctl -s "$rdma" --token "$tmp/tok.bad" get 1
	check "[token] ORDO_TOKEN" 1 "" env ORDO_TOKEN=sesame-012345678 $ctl -s "$rdma" get 1
	check "[token] wrong ORDO_TOKEN is 3" 3 "" \
		env ORDO_TOKEN=sesame-012345678-0123456789 $ctl -s "$rdma" get 1
	check "[token] --token wins over ORDO_TOKEN" 1 "" \
		env ORDO_TOKEN=wrong $ctl -s "$rdma" --token "$tmp/tok" get 1
	check "[token] an empty --token file is no token" 3 "" \
		env ORDO_TOKEN=sesame-012345678 $ctl -s "$rdma" --token "$tmp/tok.empty" get 1
	check "[token] a token over 40 bytes is usage" 2 "" \
		$ctl -s "$rdma" --token "$tmp/tok.long" get 1
	check "[token] a missing token file is usage" 2 "" \
		$ctl -s "$rdma" --token "$tmp/nonexistent" get 1
	check "[token] writes with the token" 0 "" \
		$ctl -s "$rdma" --token "$tmp/tok" put 700 tok
	check "[token] reads with the token" 0 tok \
		env ORDO_TOKEN=sesame-012345678 $ctl -s "$rdma" --mode rpc get 700
	check "[token] the local device needs none" 0 tok \
		env ORDO_TOKEN=wrong $ctl --token "$tmp/tok.bad" get 700
	check "[token] del with the token" 0 "" \
		$ctl -s "$rdma" --token "$tmp/tok" del 700
	restore
	tap $? "[token] restore $tokparam"
	trap 'rm -rf "$tmp"' EXIT
	if [ -z "$orig" ]; then
		check "[token] restored: no token needed again" 1 "" \
			env -u ORDO_TOKEN $ctl -s "$rdma" get 1
	fi
fi

# The example program, built from Documentation/examples/ by make.
if [ -x "$hello" ]; then
	for uri in /dev/ordo "$rdma"; do
		check "[example] ordo_hello $uri" 0 "*" $hello "$uri"
		$hello "$uri" 2>&1 | sed 's/^/# /'
		check "[example] ordo_hello $uri gets" 0 "get 1001: hello 1" \
			bash -c "$hello $uri | grep '^get '"
		check "[example] ordo_hello $uri scans" 0 3 \
			bash -c "$hello $uri | grep -c '^scan 10'"
	done
	check "[example] ordo_hello left the store empty" 0 "" $ctl scan 0 10
else
	skip "[example] ordo_hello" "$hello is not built"
fi

echo "1..$n"
exit $fail
