// SPDX-License-Identifier: GPL-2.0
/*
 * The access token RDMA clients present at connect: its write-only module
 * parameter and its constant-time check (Documentation/admin.rst).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "listener.h"

/*
 * The access token.  Write-only: the parameter has no get method, so its
 * sysfs file (mode 0200) cannot be read back, not even by root.
 */
static DEFINE_SPINLOCK(ordo_token_lock);
static u8 ordo_token[ORDO_WIRE_TOKEN_MAX];
static u32 ordo_token_len;
/* Set once the server runs: from then on, token changes are logged. */
static bool ordo_token_live;
/*
 * A token of the wrong length given at load: -1 too short, 1 too long.
 * Refused by ordo_rdma_token_check() rather than by the parameter's set
 * method, whose failure makes the kernel log the rejected value.
 */
static int ordo_token_bad;

static int ordo_token_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strlen(val);
	bool live, changed;

	/* "echo secret > token" appends a newline that is not part of it. */
	if (len && val[len - 1] == '\n')
		len--;
	if (len > ORDO_WIRE_TOKEN_MAX || (len && len < ORDO_TOKEN_MIN)) {
		spin_lock(&ordo_token_lock);
		live = ordo_token_live;
		if (!live)
			ordo_token_bad = len > ORDO_WIRE_TOKEN_MAX ? 1 : -1;
		spin_unlock(&ordo_token_lock);
		if (!live)
			return 0;	/* at load: ordo_rdma_token_check() */
		pr_warn("token: %d to %d bytes, or empty for none\n",
			ORDO_TOKEN_MIN, ORDO_WIRE_TOKEN_MAX);
		return -EINVAL;
	}
	spin_lock(&ordo_token_lock);
	ordo_token_bad = 0;
	changed = len != ordo_token_len || memcmp(ordo_token, val, len);
	memzero_explicit(ordo_token, sizeof(ordo_token));
	memcpy(ordo_token, val, len);
	ordo_token_len = len;
	live = ordo_token_live;
	spin_unlock(&ordo_token_lock);
	/* Failures against the old token say nothing about the new one. */
	if (changed)
		ordo_throttle_reset();
	if (!live || !changed)
		return 0;
	if (len)
		pr_info("access token changed (%zu bytes); connected clients keep their connections\n",
			len);
	else
		pr_notice("access token cleared: clients connect without a token\n");
	return 0;
}

static const struct kernel_param_ops ordo_token_ops = {
	.set = ordo_token_set,
};
module_param_cb(token, &ordo_token_ops, NULL, 0200);
MODULE_PARM_DESC(token,
		 "Access token RDMA clients must present (16 to 40 bytes; empty: none required). Write-only");

/**
 * ordo_rdma_token_check - refuse to start with a bad token from load
 *
 * Return: 0, or -EINVAL (logged, without the token) when the token given
 * at load was shorter than ORDO_TOKEN_MIN or longer than the wire allows.
 */
int ordo_rdma_token_check(void)
{
	int bad;

	spin_lock(&ordo_token_lock);
	bad = ordo_token_bad;
	spin_unlock(&ordo_token_lock);
	if (!bad)
		return 0;
	pr_err("token: the token given at load is %s than %d bytes: it must be %d to %d bytes, or empty for none; not loaded\n",
	       bad < 0 ? "shorter" : "longer",
	       bad < 0 ? ORDO_TOKEN_MIN : ORDO_WIRE_TOKEN_MAX,
	       ORDO_TOKEN_MIN, ORDO_WIRE_TOKEN_MAX);
	return -EINVAL;
}

bool ordo_rdma_token_required(void)
{
	bool req;

	spin_lock(&ordo_token_lock);
	req = ordo_token_len != 0;
	spin_unlock(&ordo_token_lock);
	return req;
}

/**
 * ordo_rdma_token_ok - check a connect request's token in constant time
 * @req: the request, magic and version already checked
 *
 * Both tokens are compared as zero-padded %ORDO_WIRE_TOKEN_MAX-byte
 * fields, so the time taken tells nothing about where they differ or how
 * long the expected token is.
 *
 * Return: true if no token is required or the token matches.
 */
bool ordo_rdma_token_ok(const struct ordo_wire_conn_req *req)
{
	u8 want[ORDO_WIRE_TOKEN_MAX];
	u32 want_len;
	bool ok, same;

	spin_lock(&ordo_token_lock);
	memcpy(want, ordo_token, sizeof(want));
	want_len = ordo_token_len;
	spin_unlock(&ordo_token_lock);
	/* Both parts always evaluated: no early exit on the bytes. */
	same = !crypto_memneq(want, req->token, sizeof(want));
	ok = !want_len || (same && le16_to_cpu(req->token_len) == want_len);
	memzero_explicit(want, sizeof(want));
	return ok;
}

/**
 * ordo_rdma_token_serve - the server starts or stops serving
 * @on: starts: token changes are logged from now on; stops: the token is
 *	wiped, so it does not outlive the server in freed module memory
 */
void ordo_rdma_token_serve(bool on)
{
	spin_lock(&ordo_token_lock);
	ordo_token_live = on;
	if (!on) {
		memzero_explicit(ordo_token, sizeof(ordo_token));
		ordo_token_len = 0;
	}
	spin_unlock(&ordo_token_lock);
}
