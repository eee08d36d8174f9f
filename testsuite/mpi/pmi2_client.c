// SPDX-License-Identifier: MIT
/*
 * A PMI-2 client for the wire-up tests, built at test time against
 * Slurm's libpmi2 (Debian: libpmi2-0-dev) when it is there: every rank
 * puts "v;<rank>" (a ';' to escape) under "key-<rank>", fences, reads
 * every rank's value back and the job's PMI_process_mapping, and prints
 * "pmi2 rank R of N mapping M ok"; the exit status is non-zero on any
 * mismatch.
 */
#include <stdio.h>
#include <string.h>

#include <slurm/pmi2.h>

int main(void)
{
	char jobid[PMI2_MAX_VALLEN];
	char mapping[PMI2_MAX_VALLEN] = "";
	char key[64];
	char val[PMI2_MAX_VALLEN];
	char want[64];
	int spawned, size, rank, appnum, found = 0, len;

	if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS ||
	    PMI2_Job_GetId(jobid, sizeof(jobid)) != PMI2_SUCCESS ||
	    PMI2_Info_GetJobAttr("PMI_process_mapping", mapping,
				 sizeof(mapping), &found) != PMI2_SUCCESS ||
	    !found) {
		fprintf(stderr, "pmi2: init failed\n");
		return 1;
	}
	snprintf(key, sizeof(key), "key-%d", rank);
	snprintf(val, sizeof(val), "v;%d", rank);
	if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS ||
	    PMI2_KVS_Fence() != PMI2_SUCCESS) {
		fprintf(stderr, "pmi2: rank %d: put or fence failed\n", rank);
		return 1;
	}
	for (int r = 0; r < size; r++) {
		snprintf(key, sizeof(key), "key-%d", r);
		snprintf(want, sizeof(want), "v;%d", r);
		if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, val, sizeof(val),
				 &len) != PMI2_SUCCESS ||
		    strcmp(val, want)) {
			fprintf(stderr, "pmi2: rank %d: %s: got '%s'\n", rank,
				key, val);
			return 1;
		}
	}
	if (PMI2_Finalize() != PMI2_SUCCESS)
		return 1;
	printf("pmi2 rank %d of %d mapping %s ok\n", rank, size, mapping);
	return 0;
}
