// SPDX-License-Identifier: MIT
/*
 * Could a job ever run (core.h, "Layers": placement)?  At submit and on a
 * change of queue: on the full size of its queue's nodes, whatever runs
 * now; if not, the user's one line names what no node has, or the cores
 * kept for test queues (ReservedCores) when they are what it lacks.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"

/*
 * An ordinary job that would fit with the test queues' kept cores: name
 * them, on the largest node ("each node's" when all are alike).
 */
static int explain_kept(struct core *core, const struct core_job *job,
			struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	struct place_ctx total = { .core = core, .mode = PLACE_TOTAL,
				   .kept = true };
	const struct core_node *big = NULL;
	uint32_t at = 0;
	bool alike = true;
	char queues[64];
	struct placement p;
	bool fits;

	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if (!constraint_match(job->constraint, n->features))
			continue;
		if (big && (node_cores_total(n) != node_cores_total(big) ||
			    n->test_reserved != big->test_reserved))
			alike = false;
		if (!big || node_cores_total(n) > node_cores_total(big)) {
			big = n;
			at = q->nodes[i];
		}
	}
	if (!big || !big->test_reserved)
		return 0;
	placement_init(core, &p);
	fits = place_job(&total, job, &p);
	placement_fini(core, &p);
	if (!fits)
		return 0;
	node_kept_queues(core, at, queues, sizeof(queues));
	return rota_errorf(err, -EINVAL,
			   "%u tasks x %u cpus: more cores than queue '%s' "
			   "may use: %u of %s %u cores are kept for queues "
			   "%s (ReservedCores)",
			   job->desc.ntasks, job->desc.cpus_per_task, q->name,
			   big->test_reserved,
			   alike ? "each node's" : "the largest node's",
			   node_cores_total(big), queues);
}

/* "gpus: v100, p100" of the queue's nodes that match, for the line. */
static void gpu_types(const struct core *core, const struct core_job *job,
		      char *buf, size_t len)
{
	const struct core_queue *q = &core->queues[job->queue];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		for (uint32_t g = 0; g < n->ngpus && at + 40 < len; g++) {
			const char *t = n->gpus[g].type[0] ? n->gpus[g].type
							   : "(no type)";

			if (strstr(buf, t))
				continue;
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? ", " : "", t);
		}
	}
}

/* A GPU request no node of the queue could ever hold, in one line. */
static int explain_gpus(struct core *core, const struct core_job *job,
			struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	const char *type = job->desc.gpu_type;
	uint32_t most = 0;
	char types[160];

	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];
		uint32_t c = node_gpus_count(n, type, false);

		if (constraint_match(job->constraint, n->features) && c > most)
			most = c;
	}
	gpu_types(core, job, types, sizeof(types));
	if (!most && type)
		return rota_errorf(err, -EINVAL,
				   "--gpus: no node of queue '%s' has GPUs "
				   "of type '%s' (%s%s)",
				   q->name, type, types[0] ? "it has: " : "",
				   types[0] ? types : "it has none");
	if (job->desc.gpus_per_node > most || job->desc.gpus_per_task > most)
		return rota_errorf(err, -EINVAL,
				   "--gpus-per-%s=%u: more GPUs%s%s than any "
				   "node of queue '%s' has (most: %u)",
				   job->desc.gpus_per_node ? "node" : "task",
				   job->desc.gpus_per_node
					   ? job->desc.gpus_per_node
					   : job->desc.gpus_per_task,
				   type ? " of type " : "", type ? type : "",
				   q->name, most);
	return 0;
}

static int explain_infeasible(struct core *core, const struct core_job *job,
			      struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	uint32_t matching = 0, max_cores = 0;
	uint64_t max_mem = 0;
	char size[32];

	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if (!constraint_match(job->constraint, n->features))
			continue;
		matching++;
		if (node_mem_total(n) > max_mem)
			max_mem = node_mem_total(n);
		if (node_cores_total(n) > max_cores)
			max_cores = node_cores_total(n);
	}
	if (!matching)
		return rota_errorf(err, -EINVAL,
				   "--constraint=%s: no node of queue '%s' "
				   "has these features",
				   job->desc.constraint, q->name);
	if (job->desc.nodes > matching)
		return rota_errorf(err, -EINVAL,
				   "--nodes=%u: queue '%s' has %u such nodes",
				   job->desc.nodes, q->name, matching);
	if (job->desc.nodes > job->desc.ntasks &&
	    job->desc.nodes > job->desc.ntasks_max)
		return rota_errorf(err, -EINVAL,
				   "--nodes=%u: more nodes than the %u tasks",
				   job->desc.nodes,
				   job->desc.ntasks_max ? job->desc.ntasks_max
							: job->desc.ntasks);
	if (job->desc.mem_mb > max_mem) {
		rota_size_format_mb(max_mem, size, sizeof(size));
		return rota_errorf(err, -EINVAL,
				   "--mem=%lluM: no node of queue '%s' has "
				   "that much memory (largest: %s)",
				   (unsigned long long)job->desc.mem_mb,
				   q->name, size);
	}
	if (job->desc.mem_per_cpu_mb * job->desc.cpus_per_task > max_mem) {
		rota_size_format_mb(max_mem, size, sizeof(size));
		return rota_errorf(err, -EINVAL,
				   "--mem-per-cpu=%lluM: a task's %u cpus need "
				   "more memory than any node of queue '%s' "
				   "has (largest: %s)",
				   (unsigned long long)job->desc.mem_per_cpu_mb,
				   job->desc.cpus_per_task, q->name, size);
	}
	if (job_node_gpus(job, 1) && explain_gpus(core, job, err) < 0)
		return -EINVAL;
	if (job->ngres && gres_explain(core, job, err) < 0)
		return -EINVAL;
	if (!core->queues[job->queue].reserved_cores &&
	    explain_kept(core, job, err) < 0)
		return -EINVAL;
	return rota_errorf(err, -EINVAL,
			   "%u tasks x %u cpus: more cores than the nodes of "
			   "queue '%s' have (largest node: %u cores)",
			   job->desc.ntasks, job->desc.cpus_per_task, q->name,
			   max_cores);
}

int sched_check_feasible(struct core *core, const struct core_job *job,
			 struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	struct place_ctx total = { .core = core, .mode = PLACE_TOTAL };
	bool gpus = job_node_gpus(job, 1) > 0;
	struct placement p;
	bool fits;

	/*
	 * A node of unknown size (not registered, no CPUs=) may hold it;
	 * so may, for GPUs, one not registered yet that declares none.
	 */
	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if ((!node_cores_total(n) ||
		     (gpus && !n->pus && !n->cfg_gpus)) &&
		    constraint_match(job->constraint, n->features))
			return 0;
	}
	placement_init(core, &p);
	fits = place_job(&total, job, &p);
	placement_fini(core, &p);
	return fits ? 0 : explain_infeasible(core, job, err);
}
