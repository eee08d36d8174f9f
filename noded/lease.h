/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_LEASE_H
#define ROTA_NODED_LEASE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A node's lease from the controller: its jobs may run only while it is
 * fresh (docs/config.md, NodeLease).  The node daemon renews it on each
 * answered heartbeat and writes its end to SpoolDir/<node>/lease; each
 * job's supervisor reads that file and kills its job once the end has
 * passed, whether the daemon is cut off from the controller or gone
 * itself.  Times are milliseconds of CLOCK_BOOTTIME, which neither a step
 * of the wall clock nor a suspend can hold back.
 */

/* Now, in the lease's clock. */
int64_t lease_now_ms(void);

/*
 * Write the lease's end ('end_ms'; 0: no lease, jobs run on whatever
 * happens) to 'path', whole (a temporary, then rename): 0 or -errno.
 */
int lease_write(const char *path, int64_t end_ms);

/*
 * Has the lease in 'path' run out?  A file that is missing or unreadable
 * counts as run out: a job is never kept alive by what cannot be read.
 */
bool lease_expired(const char *path);

#endif
