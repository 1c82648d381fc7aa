/* vc_crc32c: CRC-32C (Castagnoli), the checksum that frames records in files
 * vantage appends to (the agent's spool), so a torn or damaged record is
 * told apart from a good one. None of the project's libraries exports it.
 * Check value: vc_crc32c(0, "123456789", 9) == 0xE3069283. */
#ifndef VC_CRC32C_H
#define VC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: pass 0 to start, the previous result to extend it over
 * more data (crc(a+b) == vc_crc32c(vc_crc32c(0, a), b)). Thread-safe. */
uint32_t vc_crc32c(uint32_t crc, const void *data, size_t len);

#endif
