// SPDX-License-Identifier: MIT
/*
 * An MPI hello for the wire-up tests, compiled at test time with the MPI
 * library's own mpicc: every rank adds its rank with MPI_Allreduce and
 * prints "rank R of N sum S"; exits 1 if the sum is not 0 + 1 + ... + N-1.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	long rank_l;
	long sum = -1;
	int rank;
	int size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rank_l = rank;
	MPI_Allreduce(&rank_l, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d sum %ld\n", rank, size, sum);
	fflush(stdout);
	MPI_Finalize();
	return sum == (long)size * (size - 1) / 2 ? 0 : 1;
}
