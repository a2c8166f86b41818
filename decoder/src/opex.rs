//! nvdisasm's table `TABLES_opex_0`: which values of the scheduling pair
//! (usched_info, bits 109:105, as the low 5 bits; batch_t, bits 124:122, as the high 3 bits)
//! a TLD4 may hold.
//!
//! Obtained by asking nvdisasm 13.5 (`nvdisasm -b SM100`) about all 256 values on both forms
//! (0xd64 and 0xf63) with every other field fixed; both forms gave the same 157 legal values.
//! The others are refused with "Opclass 'tld4_urc_', undefined value 0x.. for table
//! 'TABLES_opex_0'". The differential harness (`oracles/nvdisasm`) re-asks all 256 values
//! live and fails on any difference, and its random words vary the other fields too.

/// The legal opex values, as nvdisasm lists them (data, not code).
pub const LEGAL_OPEX_VALUES: [u8; 157] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, //
    0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x31,
    0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, //
    0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x51,
    0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, //
    0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x71,
    0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, //
    0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x91,
    0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, //
    0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb1,
    0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
];

const fn bitmap() -> [u64; 4] {
    let mut map = [0u64; 4];
    let mut i = 0;
    while i < LEGAL_OPEX_VALUES.len() {
        let v = LEGAL_OPEX_VALUES[i] as usize;
        map[v >> 6] |= 1 << (v & 63);
        i += 1;
    }
    map
}

const LEGAL: [u64; 4] = bitmap();

/// The opex value nvdisasm checks: usched_info in the low 5 bits, batch_t in the high 3.
#[inline(always)]
pub const fn opex_value(usched_info: u8, batch_t: u8) -> u8 {
    (usched_info & 0x1f) | ((batch_t & 7) << 5)
}

/// Whether nvdisasm's `TABLES_opex_0` defines `opex`.
#[inline(always)]
pub const fn is_legal_opex(opex: u8) -> bool {
    LEGAL[(opex >> 6) as usize] >> (opex & 63) & 1 != 0
}

/// The same table by batch_t: bit `u` of row `b` says whether usched_info `u` with batch_t
/// `b` is legal (the bitmap above, cut into its eight 32-bit rows).
const BY_BATCH_T: [u32; 8] = {
    let mut rows = [0u32; 8];
    let mut b = 0;
    while b < 8 {
        rows[b] = (LEGAL[b / 2] >> (32 * (b % 2))) as u32;
        b += 1;
    }
    rows
};

/// Zero exactly when [`is_legal_opex`] holds for the pair, else nonzero, without assembling
/// the opex value first: one row load and one bit test, no branch (the decode fast path ORs
/// it with the fields' refusals).
#[inline(always)]
pub(crate) const fn rejects_pair(usched_info: u32, batch_t: u32) -> u32 {
    !(BY_BATCH_T[(batch_t & 7) as usize] >> (usched_info & 31)) & 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_say_what_the_bitmap_says() {
        for opex in 0..=255u8 {
            let (u, b) = (opex as u32 & 0x1f, opex as u32 >> 5);
            assert_eq!(rejects_pair(u, b) == 0, is_legal_opex(opex), "{opex:#04x}");
            assert_eq!(is_legal_opex(opex), LEGAL_OPEX_VALUES.contains(&opex));
        }
    }
}
