// SPDX-License-Identifier: MIT
/*
 * The MPI hello of bench/steps: wire-up (MPI_Init), one collective that
 * needs every rank (an allreduce of the ranks), a line per rank, and
 * MPI_Finalize.  Built twice by the bench, with Open MPI (PMIx) and with
 * MPICH (PMI-2).  A line ends "ok" if the sum is right, which the bench
 * counts: a run that lost a rank or a line does not count.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = -1;
	long want;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	want = (long)size * (size - 1) / 2;
	printf("hello %d of %d sum %d %s\n", rank, size, sum,
	       sum == want ? "ok" : "wrong");
	fflush(stdout);
	MPI_Finalize();
	return sum == want ? 0 : 1;
}
