// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of the RDMA server with clients connected: the RDMA device
 * deleted under them ("rdma link delete") and added back, the listener
 * moved to another address and port (and waiting for an address that does
 * not exist yet, and for its device to come back), "rmmod ordo" with
 * busy clients, a device whose DMA would need syncs, and a load with a
 * token of the wrong length.  Each ends with clients disconnected, the server (or the
 * reloaded module) serving again, and a clean kernel log (checked by
 * vmrun).  Runs in the vmrun guest only: it deletes rxe0 and reloads
 * ordo.ko, and puts both back.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

#define KBASE	0x4c00000000000000ULL
#define DMA_UNSYNCED	"/sys/kernel/debug/ordo/dma_unsynced"

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool module_loaded(void)
{
	return !access(RC_SYSFS "/listener", F_OK);
}

/* Wait until rdma/listener starts with @want; 0 or -ETIMEDOUT. */
static int wait_listener(const char *want, int ms)
{
	long long end = rc_now_ms() + ms;
	char buf[128];

	do {
		if (!t_read_file(RC_SYSFS "/listener", buf, sizeof(buf)) &&
		    !strncmp(buf, want, strlen(want)))
			return 0;
		usleep(100000);
	} while (rc_now_ms() < end);
	fprintf(stderr, "# listener is \"%s\", want \"%s\"\n", buf, want);
	return -ETIMEDOUT;
}

static long long wait_conns(long long n)
{
	long long now = -1;
	int i;

	for (i = 0; i < 400; i++) {
		now = rc_sysfs_u64("stats/connections");
		if (now <= n)
			break;
		usleep(50000);
	}
	return now;
}

/* Load ordo.ko with @params after the ones vmrun loaded it with. */
static int load(const char *params)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "insmod kmod/ordo.ko $ORDO_GUEST_MODULE_PARAMS %s", params);
	return sh(cmd);
}

/* Everything as vmrun set it up. */
static int restore(void)
{
	int ret;

	/* device_needing_dma_syncs_is_refused's knob, there if loaded. */
	if (!access(DMA_UNSYNCED, W_OK))
		rc_write_file(DMA_UNSYNCED, "0");
	ret = rc_rxe_add();
	if (ret)
		return ret;
	if (!module_loaded() && load(""))
		return -EIO;
	sh("ip addr del 192.0.2.77/24 dev ordo0 >/dev/null 2>&1");
	if (rc_set_param("token", "\n") || rc_set_param("listen_port", "7471") ||
	    rc_set_param("listen_addr", "\n") ||
	    rc_set_param("max_connections", "64"))
		return -EIO;
	return wait_listener("[::]:7471", 20000);
}

FIXTURE(life) {
	pid_t kids[4];
	int nkids;
};

FIXTURE_SETUP(life)
{
	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, restore());
}

FIXTURE_TEARDOWN(life)
{
	int i;

	for (i = 0; i < self->nkids; i++) {
		kill(self->kids[i], SIGKILL);
		waitpid(self->kids[i], NULL, 0);
	}
	EXPECT_EQ(0, restore());
}

/*
 * A client process: connect, report on @fd, then issue RPCs (writes if
 * @write) until the server goes away.  Exit 0 if it was served and then
 * saw the connection end; 1 if it could not connect; 2 if it never saw
 * the end.  @writes: PUTs rather than INFOs.
 */
static void client_loop(int fd, int n, bool writes)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX] = { 0 };
	struct rc_conn c;
	long long end;
	int i, ret = 0;
	char ok = 'c';

	if (rc_connect(&c, NULL))
		_exit(1);
	if (rc_kv(&c, ORDO_WIRE_OP_PUT, KBASE + 0x100 + n, v,
		  le32toh(c.rep.value_size)))
		_exit(1);
	if (write(fd, &ok, 1) != 1)
		_exit(1);
	end = rc_now_ms() + 120000;
	for (i = 0; rc_now_ms() < end; i++) {
		if (writes)
			ret = rc_kv(&c, ORDO_WIRE_OP_PUT, KBASE + 0x1000 + i, v,
				    le32toh(c.rep.value_size));
		else
			ret = rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0);
		if (ret)
			break;
	}
	/* Free the verbs objects: a device being deleted waits for it. */
	rc_close(&c);
	_exit(ret == -ECONNRESET || ret == -ETIMEDOUT || ret == -EIO ? 0 : 2);
}

/* Start @n client processes and wait until each is connected and served. */
static void start_clients(struct __test_metadata *_metadata,
			  FIXTURE_DATA(life) *self, int n, bool writes)
{
	int pfd[2], i;
	char ok;

	ASSERT_EQ(0, pipe(pfd));
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			close(pfd[0]);
			client_loop(pfd[1], i, writes);
		}
		self->kids[self->nkids++] = pid;
	}
	close(pfd[1]);
	for (i = 0; i < n; i++)
		ASSERT_EQ(1, read(pfd[0], &ok, 1));
	close(pfd[0]);
}

static void reap_clients(struct __test_metadata *_metadata,
			 FIXTURE_DATA(life) *self)
{
	int i, st;

	for (i = 0; i < self->nkids; i++) {
		ASSERT_EQ(self->kids[i], waitpid(self->kids[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st));
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	self->nkids = 0;
}

TEST_F_TIMEOUT(life, device_removed_under_clients, 300)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct rc_conn c;
	long long t0;

	start_clients(_metadata, self, 3, false);
	EXPECT_EQ(3, rc_sysfs_u64("stats/connections"));
	t0 = rc_now_ms();
	/* Returns once every user of rxe0, ours included, let go of it. */
	ASSERT_EQ(0, sh("timeout 120 rdma link delete rxe0"));
	TH_LOG("rdma link delete with 3 clients: %lld ms", rc_now_ms() - t0);
	reap_clients(_metadata, self);
	EXPECT_FALSE(rc_rxe_present());
	EXPECT_EQ(0, rc_sysfs_u64("stats/connections"));
	/* The wildcard listener serves the device once it is back. */
	ASSERT_EQ(0, rc_rxe_add());
	ASSERT_EQ(0, rc_connect(&c, NULL));
	ASSERT_EQ(0, rc_kv(&c, ORDO_WIRE_OP_GET, KBASE + 0x100, v, 0));
	ASSERT_EQ(0, rc_regions(&c));
	EXPECT_EQ(0, rc_read(&c, 0, 64, v));
	rc_close(&c);
}

TEST_F_TIMEOUT(life, listener_moves, 300)
{
	struct rc_opts o = { 0 };
	struct rc_conn keep, c;

	ASSERT_EQ(0, rc_connect(&keep, NULL));
	/* One address. */
	ASSERT_EQ(0, rc_set_param("listen_addr", "192.0.2.1\n"));
	ASSERT_EQ(0, wait_listener("192.0.2.1:7471", 20000));
	ASSERT_EQ(0, rc_connect(&c, NULL));
	rc_close(&c);
	/* Another port: the old one is closed. */
	ASSERT_EQ(0, rc_set_param("listen_port", "7472"));
	ASSERT_EQ(0, wait_listener("192.0.2.1:7472", 20000));
	EXPECT_NE(0, rc_connect(&c, NULL));
	EXPECT_EQ(0, c.rej.magic);
	o.port = 7472;
	ASSERT_EQ(0, rc_connect(&c, &o));
	rc_close(&c);
	/* Bad values are refused and change nothing. */
	EXPECT_NE(0, rc_set_param("listen_addr", "no.such.address\n"));
	EXPECT_NE(0, rc_set_param("listen_port", "0"));
	EXPECT_NE(0, rc_set_param("listen_port", "70000"));
	ASSERT_EQ(0, wait_listener("192.0.2.1:7472", 1000));
	/* An address not configured yet: the server waits for it. */
	ASSERT_EQ(0, rc_set_param("listen_addr", "192.0.2.77\n"));
	ASSERT_EQ(0, wait_listener("none", 20000));
	ASSERT_EQ(0, sh("ip addr add 192.0.2.77/24 dev ordo0"));
	ASSERT_EQ(0, wait_listener("192.0.2.77:7472", 30000));
	o.addr = "192.0.2.77";
	ASSERT_EQ(0, rc_connect(&c, &o));
	EXPECT_EQ(0, rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c);
	/* Connections made before any of this were never disturbed. */
	EXPECT_EQ(0, rc_call(&keep, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&keep);
	EXPECT_EQ(0, wait_conns(0));
}

/*
 * A listener bound to rxe0's address loses its device with rxe0 and comes
 * back with it.  (This process opens no verbs context before the delete:
 * librdmacm keeps one per device open, and the delete waits for it.)
 */
TEST_F_TIMEOUT(life, bound_listener_outlives_its_device, 300)
{
	struct rc_conn c;

	ASSERT_EQ(0, rc_set_param("listen_addr", "192.0.2.1\n"));
	ASSERT_EQ(0, wait_listener("192.0.2.1:7471", 20000));
	ASSERT_EQ(0, sh("timeout 120 rdma link delete rxe0"));
	ASSERT_EQ(0, wait_listener("none", 20000));
	ASSERT_EQ(0, rc_rxe_add());
	ASSERT_EQ(0, wait_listener("192.0.2.1:7471", 30000));
	ASSERT_EQ(0, rc_connect(&c, NULL));
	EXPECT_EQ(0, rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c);
}

/* "dmesg" from the line containing @mark on contains @what. */
static bool logged_since(const char *mark, const char *what)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "dmesg | sed -n '/%s/,$p' | grep -qF '%s'", mark, what);
	return !sh(cmd);
}

/*
 * A device whose DMA would need cache syncs (dma_need_sync(): bounce
 * buffers, non-coherent caches) is not served: one-sided READs of live
 * memory cannot have syncs.  rxe never needs them, so debugfs's
 * dma_unsynced makes rxe0, deleted and added again, count as such.
 */
TEST_F_TIMEOUT(life, device_needing_dma_syncs_is_refused, 300)
{
	long long rej = rc_sysfs_u64("stats/rejected_device");
	struct rc_conn c;
	pid_t pid;
	int st;

	ASSERT_EQ(0, access(DMA_UNSYNCED, W_OK));
	ASSERT_EQ(0, sh("echo 'ordo-test: dma syncs' > /dev/kmsg"));
	ASSERT_EQ(0, rc_write_file(DMA_UNSYNCED, "1"));
	ASSERT_EQ(0, sh("timeout 120 rdma link delete rxe0"));
	ASSERT_EQ(0, rc_rxe_add());
	ASSERT_EQ(0, rc_write_file(DMA_UNSYNCED, "0"));
	EXPECT_TRUE(logged_since("ordo-test: dma syncs",
				 "ordo: RDMA device rxe0: its DMA needs cache syncs or bounce buffers, which one-sided reads of live memory cannot have; not serving"));
	/* Refused with reason DEVICE; in a child, which rxe0 is deleted without. */
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int ret = rc_connect(&c, NULL);

		_exit(ret == -ENODEV &&
		      le16toh(c.rej.reason) == ORDO_WIRE_REJ_DEVICE ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(rej + 1, rc_sysfs_u64("stats/rejected_device"));
	/* Added again with the knob off, it is served. */
	ASSERT_EQ(0, sh("echo 'ordo-test: dma synced' > /dev/kmsg"));
	ASSERT_EQ(0, sh("timeout 120 rdma link delete rxe0"));
	ASSERT_EQ(0, rc_rxe_add());
	EXPECT_TRUE(logged_since("ordo-test: dma synced",
				 "ordo: RDMA device rxe0: serving"));
	ASSERT_EQ(0, rc_connect(&c, NULL));
	EXPECT_EQ(0, rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c);
}

TEST_F_TIMEOUT(life, rmmod_with_clients, 300)
{
	struct rc_res base, now;
	struct rc_conn c;
	long long t0;

	/* Idle server: its listener's cm_id on rxe0 is all it holds. */
	ASSERT_EQ(0, rc_res_count("rxe0", &base));
	start_clients(_metadata, self, 2, false);
	start_clients(_metadata, self, 2, true);
	EXPECT_EQ(4, rc_sysfs_u64("stats/connections"));
	t0 = rc_now_ms();
	ASSERT_EQ(0, sh("rmmod ordo"));
	TH_LOG("rmmod with 4 busy clients: %lld ms", rc_now_ms() - t0);
	reap_clients(_metadata, self);
	EXPECT_FALSE(module_loaded());
	/* Nothing of the server's or the clients' is left on the device. */
	ASSERT_EQ(0, rc_res_count("rxe0", &now));
	EXPECT_EQ(base.pd, now.pd);
	EXPECT_EQ(base.qp, now.qp);
	EXPECT_EQ(base.mr, now.mr);
	EXPECT_EQ(base.cm_id - 1, now.cm_id);
	/* Loads again and serves; the rig removes it at the end. */
	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, wait_listener("[::]:7471", 20000));
	ASSERT_EQ(0, rc_connect(&c, NULL));
	EXPECT_EQ(0, rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c);
}

/*
 * A token of fewer than 16 bytes (or more than 40) at load: insmod fails
 * and the kernel log says why, without the token; nothing is left
 * loaded.  One of 16 bytes loads and is required.  The teardown loads
 * ordo.ko again as vmrun did.
 */
TEST_F_TIMEOUT(life, token_length_at_load, 300)
{
	static const char *const bad[] = {
		"token=fifteen-bytes-x",
		"token=forty-one-bytes-are-one-more-than-allowed",
	};
	static const char *const why[] = {
		"token given at load is shorter than 16 bytes",
		"token given at load is longer than 40 bytes",
	};
	struct rc_opts o = { .token = "sixteen-bytes-xy" };
	char cmd[256];
	struct rc_conn c;
	size_t i;

	ASSERT_EQ(0, sh("rmmod ordo"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* The log from a mark on (vmrun reads all of it later). */
		snprintf(cmd, sizeof(cmd),
			 "echo 'ordo-test: token at load %zu' > /dev/kmsg", i);
		ASSERT_EQ(0, sh(cmd));
		EXPECT_NE(0, load(bad[i]));
		EXPECT_FALSE(module_loaded());
		EXPECT_EQ(0, sh("grep -q '^ordo ' /proc/modules; test $? = 1"));
		snprintf(cmd, sizeof(cmd),
			 "dmesg | sed -n '/ordo-test: token at load %zu/,$p' | grep -q 'ordo: .*%s'",
			 i, why[i]);
		EXPECT_EQ(0, sh(cmd));
		snprintf(cmd, sizeof(cmd), "dmesg | grep -qF '%s'",
			 strchr(bad[i], '=') + 1);
		EXPECT_NE(0, sh(cmd));
		TH_LOG("%zu-byte token at load refused", strlen(bad[i]) - 6);
	}
	ASSERT_EQ(0, load("token=sixteen-bytes-xy"));
	ASSERT_EQ(0, wait_listener("[::]:7471", 20000));
	EXPECT_EQ(-EACCES, rc_connect(&c, NULL));
	ASSERT_EQ(0, rc_connect(&c, &o));
	EXPECT_EQ(0, rc_call(&c, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c);
	ASSERT_EQ(0, sh("rmmod ordo"));
}

TEST_HARNESS_MAIN
