/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CRC32C_H
#define ROTA_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32C (Castagnoli), as iSCSI and ext4 use it: what tells a torn or
 * damaged journal record from a whole one.  Not a defence against malice.
 */
uint32_t rota_crc32c(uint32_t crc, const void *data, size_t len);

#endif
