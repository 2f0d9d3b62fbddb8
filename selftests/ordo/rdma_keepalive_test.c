// SPDX-License-Identifier: GPL-2.0
/*
 * Liveness (keepalive_timeout): a client host cut off by the network is
 * found and its connection, QP, buffers and max_connections slot are
 * reclaimed within the timeout, while idle clients that are alive answer
 * the server's probes and keep their connections.
 *
 * The partition must be real: the server's packets to the client must be
 * lost.  Two addresses on ordo0 cannot give that: rxe sends a packet whose
 * destination MAC is its own device's straight to its receive path
 * ("loopback"), past IP, netfilter and tc, so nftables never sees it.
 * Here the clients use a second rxe device on one end of a veth pair,
 * the server's listener another on the other end, and policy routing
 * sends their traffic out of one veth and into the other (the local
 * table moved behind two rules, accept_local on), so every RoCE packet
 * crosses the IP stack of both ends.  An nftables rule in the input hook
 * then drops what comes from or goes to one client address: a partition
 * in both directions, CM messages included.  Runs in the vmrun guest only.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdarg.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

#define SRV_IP		"198.51.100.1"
#define LIVE_IP		"198.51.100.2"
#define CUT_IP		"198.51.100.3"
#define NFT_TABLE	"inet ordo_keepalive"
#define KEY		0x4b00000000000001ULL

/*
 * keepalive_timeout of the test, seconds: long enough that a live client's
 * device acknowledges a probe in time on a loaded guest, scaled for the
 * debug kernel.  Waits are bounded by 20 timeouts.
 */
static unsigned int ka_timeout(void)
{
	return 3 * t_time_scale();
}

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run printf-formatted @fmt through the shell; its exit status. */
static int shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int shf(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return sh(cmd);
}

static bool conn_present(uint32_t id)
{
	char path[128];

	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u", id);
	return !access(path, F_OK);
}

static int wait_port(const char *dev)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!shf("rdma link show %s/1 2>/dev/null | grep -q ACTIVE", dev))
			return 0;
		usleep(50000);
	}
	return -ETIMEDOUT;
}

static void net_down(void)
{
	sh("nft delete table " NFT_TABLE " 2>/dev/null");
	sh("rdma link delete rxe_kc 2>/dev/null");
	sh("rdma link delete rxe_ks 2>/dev/null");
	sh("ip link del ordo_ks 2>/dev/null");
	sh("ip rule del pref 10 2>/dev/null; ip rule del pref 10 2>/dev/null");
	sh("ip rule del pref 11 2>/dev/null; ip rule del pref 11 2>/dev/null");
	sh("ip route flush table 100 2>/dev/null; ip route flush table 101 2>/dev/null");
	/* The local table first again, as the kernel has it. */
	if (sh("ip rule show pref 0 | grep -q local"))
		sh("ip rule add pref 0 lookup local");
	sh("ip rule del pref 1000 lookup local 2>/dev/null");
}

/*
 * ordo_ks (server side, SRV_IP, rxe_ks) and ordo_kc (clients, LIVE_IP and
 * CUT_IP, rxe_kc): a veth pair whose traffic really crosses both ends.
 */
static int net_up(void)
{
	static const char *const cmds[] = {
		"ip link add ordo_ks type veth peer name ordo_kc",
		"ip addr add " SRV_IP "/24 dev ordo_ks",
		"ip addr add " LIVE_IP "/24 dev ordo_kc",
		"ip addr add " CUT_IP "/24 dev ordo_kc",
		"ip link set ordo_ks up && ip link set ordo_kc up",
		"for d in all default ordo_ks ordo_kc; do sysctl -qw net.ipv4.conf.$d.accept_local=1 net.ipv4.conf.$d.rp_filter=0 || exit 1; done",
		"ip neigh replace " SRV_IP " lladdr $(cat /sys/class/net/ordo_ks/address) dev ordo_kc nud permanent",
		"ip neigh replace " LIVE_IP " lladdr $(cat /sys/class/net/ordo_kc/address) dev ordo_ks nud permanent",
		"ip neigh replace " CUT_IP " lladdr $(cat /sys/class/net/ordo_kc/address) dev ordo_ks nud permanent",
		/* Sent from this host (iif lo): out of the veth, not to lo. */
		"ip route add " SRV_IP " dev ordo_kc table 100",
		"ip route add " LIVE_IP " dev ordo_ks table 101",
		"ip route add " CUT_IP " dev ordo_ks table 101",
		"ip rule add pref 10 iif lo from " LIVE_IP " to " SRV_IP " lookup 100",
		"ip rule add pref 10 iif lo from " CUT_IP " to " SRV_IP " lookup 100",
		"ip rule add pref 11 iif lo from " SRV_IP " to " LIVE_IP " lookup 101",
		"ip rule add pref 11 iif lo from " SRV_IP " to " CUT_IP " lookup 101",
		"ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local",
		"rdma link add rxe_ks type rxe netdev ordo_ks",
		"rdma link add rxe_kc type rxe netdev ordo_kc",
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (sh(cmds[i])) {
			fprintf(stderr, "# failed: %s\n", cmds[i]);
			return -EIO;
		}
	if (wait_port("rxe_ks") || wait_port("rxe_kc"))
		return -ETIMEDOUT;
	return 0;
}

/* Packets the partition's rules dropped so far, or -1. */
static long long nft_dropped(void)
{
	long long sum = 0, n;
	char line[256];
	FILE *f = popen("nft list table " NFT_TABLE " 2>/dev/null", "r");
	char *p;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "counter packets ")) &&
		    sscanf(p, "counter packets %lld", &n) == 1 &&
		    strstr(line, "drop"))
			sum += n;
	pclose(f);
	return sum;
}

/*
 * The clients live in a child process: rxe cannot take a device away from
 * a process that still has it open (librdmacm keeps every device open
 * until exit), so the test process itself never opens one, and can delete
 * the devices afterwards.  CHECK() ends the child with its line number.
 */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);				\
		fflush(stdout);						\
		_exit(__LINE__ & 0xff ? __LINE__ & 0xff : 1);		\
	}								\
} while (0)
#define LOG(fmt, ...) do {						\
	printf("# " fmt "\n", ##__VA_ARGS__);				\
	fflush(stdout);							\
} while (0)

static void clients(void)
{
	struct rc_opts live = { .addr = SRV_IP, .src = LIVE_IP };
	struct rc_opts cut = { .addr = SRV_IP, .src = CUT_IP };
	struct ordo_opts opts = { .size = sizeof(opts), .mode = ORDO_MODE_RPC };
	long long conns, closed, probes, t0, t_cut, dropped, took, took_cut;
	long long tmo = ka_timeout() * 1000LL, polls = tmo / 50 * 20;
	struct rc_conn a, b, extra;
	struct rc_res before, after;
	uint32_t cut_id, live_id;
	struct ordo_counters cnt;
	uint8_t v[ORDO_VALUE_SIZE_MAX] = { 7 };
	struct ordo *lo;
	char num[16];
	int i;

	CHECK(!rc_connect(&a, &live));
	CHECK(!rc_connect(&b, &cut));
	lo = ordo_open_opts(RC_URI, &opts);
	CHECK(lo);
	CHECK(!ordo_put(lo, KEY, v, 8));
	CHECK(!rc_call(&a, ORDO_WIRE_OP_INFO, NULL, 0));
	CHECK(!rc_call(&b, ORDO_WIRE_OP_INFO, NULL, 0));
	live_id = le32toh(a.rep.conn_id);
	cut_id = le32toh(b.rep.conn_id);
	CHECK(conn_present(live_id) && conn_present(cut_id));
	conns = rc_sysfs_u64("stats/connections");
	closed = rc_sysfs_u64("stats/keepalive_closed");

	/* Every slot taken: one more client is refused. */
	snprintf(num, sizeof(num), "%lld", conns);
	CHECK(!rc_set_param("max_connections", num));
	CHECK(rc_connect(&extra, &live) == -EUSERS);

	CHECK(!rc_res_count("rxe_ks", &before));
	CHECK(!sh("nft add table " NFT_TABLE));
	CHECK(!sh("nft add chain " NFT_TABLE " input '{ type filter hook input priority 0; }'"));
	/* Its last word just before the cut: silence starts there. */
	CHECK(!rc_call(&b, ORDO_WIRE_OP_INFO, NULL, 0));
	t0 = rc_now_ms();
	/* Cut CUT_IP off, both ways, in one transaction. */
	CHECK(!sh("nft 'add rule " NFT_TABLE " input ip saddr " CUT_IP " udp dport 4791 counter drop; "
		  "add rule " NFT_TABLE " input ip daddr " CUT_IP " udp dport 4791 counter drop'"));
	/*
	 * Silence starts at the last request (t0) if the cut was in place
	 * before the server's first probe (a third of the timeout of
	 * silence); on a loaded machine nft itself may take longer, and a
	 * probe answered before the cut restarts it, at the latest at t_cut.
	 */
	t_cut = rc_now_ms();
	LOG("cut %lld ms after the last request", t_cut - t0);
	/* The server's verdict first: the documented bound is on it. */
	for (i = 0; i < polls &&
	     rc_sysfs_u64("stats/keepalive_closed") == closed; i++)
		usleep(50000);
	took = rc_now_ms() - t0;
	took_cut = rc_now_ms() - t_cut;
	for (i = 0; i < polls && (conn_present(cut_id) ||
				  rc_sysfs_u64("stats/connections") >= conns); i++)
		usleep(50000);
	LOG("partitioned client closed %lld ms and reclaimed %lld ms after its last request (keepalive_timeout %lld ms)",
	    took, rc_now_ms() - t0, tmo);
	CHECK(!conn_present(cut_id));
	/*
	 * Not before the timeout after the last request (less a sixth: the
	 * client's last word reached the server a moment before t0), and by
	 * 1.1 times it (wire.rst, Liveness) after the last thing the server
	 * can have heard, plus a third for a late sweep and polling.
	 */
	CHECK(took >= tmo - tmo / 6);
	CHECK(took_cut <= tmo * 11 / 10 + tmo / 3);
	CHECK(rc_sysfs_u64("stats/connections") == conns - 1);
	CHECK(rc_sysfs_u64("stats/keepalive_closed") == closed + 1);
	/*
	 * Its QP and cm_id on the server's device are gone.  The PD and MRs
	 * are the device's, shared with the live client, and stay (the
	 * registrar may even add one meanwhile, as the model grows).
	 */
	CHECK(!rc_res_count("rxe_ks", &after));
	LOG("server device: qp %ld -> %ld, cm_id %ld -> %ld, pd %ld -> %ld, mr %ld -> %ld",
	    before.qp, after.qp, before.cm_id, after.cm_id, before.pd,
	    after.pd, before.mr, after.mr);
	CHECK(after.qp == before.qp - 1 && after.cm_id == before.cm_id - 1);
	CHECK(after.pd == before.pd && after.mr >= before.mr);
	/* The probes (and the server's disconnect) really were dropped. */
	dropped = nft_dropped();
	LOG("packets the partition dropped: %lld", dropped);
	CHECK(dropped > 0);
	/* Its slot is free again. */
	CHECK(!rc_connect(&extra, &live));
	CHECK(!rc_call(&extra, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&extra);
	CHECK(!rc_set_param("max_connections", "64"));

	/*
	 * The live clients stay idle through several timeouts: probed,
	 * they answer, and keep their connections.
	 */
	probes = rc_sysfs_u64("stats/keepalive_probes");
	t0 = rc_now_ms();
	for (i = 0; i < polls &&
	     rc_sysfs_u64("stats/keepalive_probes") < probes + 6; i++)
		usleep(50000);
	LOG("%lld probes answered in %lld ms of idleness",
	    rc_sysfs_u64("stats/keepalive_probes") - probes, rc_now_ms() - t0);
	CHECK(rc_sysfs_u64("stats/keepalive_probes") >= probes + 6);
	CHECK(conn_present(live_id));
	CHECK(rc_sysfs_u64("stats/keepalive_closed") == closed + 1);
	CHECK(!rc_call(&a, ORDO_WIRE_OP_INFO, NULL, 0));
	memset(v, 0, sizeof(v));
	CHECK(!ordo_get(lo, KEY, v, sizeof(v)));
	CHECK(v[0] == 7);
	CHECK(!ordo_counters(lo, &cnt));
	CHECK(cnt.reconnects == 0);
	CHECK(!ordo_delete(lo, KEY));
	sh("nft delete table " NFT_TABLE);
	rc_close(&a);
	rc_close(&b);
	ordo_close(lo);
	_exit(0);
}

FIXTURE(ka) {
	int unused;
};

FIXTURE_SETUP(ka)
{
	char tmo[16];

	snprintf(tmo, sizeof(tmo), "%u", ka_timeout());
	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	ASSERT_EQ(0, rc_set_param("max_connections", "64"));
	net_down();
	ASSERT_EQ(0, net_up());
	ASSERT_EQ(0, rc_set_param("keepalive_timeout", tmo));
}

FIXTURE_TEARDOWN(ka)
{
	EXPECT_EQ(0, rc_set_param("keepalive_timeout", "30"));
	EXPECT_EQ(0, rc_set_param("max_connections", "64"));
	net_down();
}

TEST_F_TIMEOUT(ka, partitioned_client_reclaimed_live_ones_kept, 900)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		clients();
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	/* Nothing of the clients' is left on the server. */
	EXPECT_EQ(0, rc_sysfs_u64("stats/connections"));
}

TEST_HARNESS_MAIN
