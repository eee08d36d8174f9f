// SPDX-License-Identifier: MIT
/*
 * MPI hello for the wire-up tests: every rank adds its rank with
 * MPI_Allreduce and prints "rank R of N sum S on CPU list L"; the exit
 * status is non-zero if the sum is not 0 + 1 + ... + N-1.  Compiled at
 * test time with the MPI library's own wrapper (mpicc.mpich, mpicc).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

/* The CPUs this rank may run on, as "0-3,8". */
static void cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;
	int cpu;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && used + 16 < len; cpu++) {
		int last = cpu;

		if (!CPU_ISSET(cpu, &set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
			last++;
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 used ? "," : "", cpu);
		if (last > cpu)
			used += (size_t)snprintf(buf + used, len - used,
						 "-%d", last);
		cpu = last;
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	long mine, sum = -1, want;
	char cpus[256];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine = rank;
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	want = (long)size * (size - 1) / 2;
	cpu_list(cpus, sizeof(cpus));
	printf("rank %d of %d sum %ld on CPU list %s\n", rank, size, sum,
	       cpus);
	fflush(stdout);
	MPI_Finalize();
	return sum == want ? 0 : 1;
}
