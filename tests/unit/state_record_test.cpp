#include "core/state_record.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

using snowflake::decode_state;
using snowflake::encode_state;
using snowflake::kStateRecordSize;
using snowflake::kStateSlots;
using snowflake::Layout;
using snowflake::LayoutWidths;
using snowflake::StateRecord;

namespace {

StateRecord sample() {
    StateRecord r;
    r.generation = 7;
    r.widths = LayoutWidths{5, 5, 12};
    r.epoch_unix_ms = 1288834974657;
    r.id_bound = 0x0123456789ABCDEFull;
    r.exact = true;
    r.run_id = 0xFEDCBA9876543210ull;
    r.system_id = 0x7311223344556677ull;
    r.checkpoint_lsn = 0x0000000301A2B3C4ull;
    r.node_id = 513;
    r.fence = 0x0102030405060708ll;
    return r;
}

}  // namespace

TEST(StateRecord, RoundTrips) {
    unsigned char bytes[kStateRecordSize];
    encode_state(sample(), bytes);
    StateRecord back;
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_EQ(back.generation, 7u);
    EXPECT_EQ(back.widths.datacenter_bits, 5);
    EXPECT_EQ(back.widths.worker_bits, 5);
    EXPECT_EQ(back.widths.sequence_bits, 12);
    EXPECT_EQ(back.epoch_unix_ms, 1288834974657);
    EXPECT_EQ(back.id_bound, 0x0123456789ABCDEFull);
    EXPECT_TRUE(back.exact);
    EXPECT_EQ(back.run_id, 0xFEDCBA9876543210ull);
    EXPECT_EQ(back.system_id, 0x7311223344556677ull);
    EXPECT_EQ(back.checkpoint_lsn, 0x0000000301A2B3C4ull);
    EXPECT_EQ(back.node_id, 513);
    EXPECT_EQ(back.fence, 0x0102030405060708ll);
    StateRecord none;  // no registry: node id -1 survives the unsigned encoding
    encode_state(none, bytes);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_EQ(back.node_id, -1);
    EXPECT_EQ(back.fence, 0);
    StateRecord reservation = sample();
    reservation.exact = false;
    encode_state(reservation, bytes);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_FALSE(back.exact);
    EXPECT_FALSE(back.lead_from_lease);
}

// The lease flag shares the byte of `exact`: an older reader, which takes
// any non-zero byte as exact, still reads an exact record.
TEST(StateRecord, LeadFromLeaseSharesTheExactByte) {
    unsigned char bytes[kStateRecordSize];
    StateRecord record = sample();
    record.lead_from_lease = true;
    encode_state(record, bytes);
    EXPECT_EQ(bytes[35], 3);
    StateRecord back;
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_TRUE(back.exact);
    EXPECT_TRUE(back.lead_from_lease);
    record.lead_from_lease = false;
    encode_state(record, bytes);
    EXPECT_EQ(bytes[35], 1);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_FALSE(back.lead_from_lease);
    EXPECT_FALSE(back.lease_held);
    record.lease_held = true;
    encode_state(record, bytes);
    EXPECT_EQ(bytes[35], 5);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_TRUE(back.exact);
    EXPECT_TRUE(back.lease_held);
    EXPECT_FALSE(back.bound_is_reservation);
    record.bound_is_reservation = true;
    encode_state(record, bytes);
    EXPECT_EQ(bytes[35], 13);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_TRUE(back.exact);
    EXPECT_TRUE(back.lease_held);
    EXPECT_TRUE(back.bound_is_reservation);
    EXPECT_FALSE(back.upgrade_handoff);
    record.upgrade_handoff = true;
    encode_state(record, bytes);
    EXPECT_EQ(bytes[35], 29);
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_TRUE(back.upgrade_handoff);
    EXPECT_TRUE(back.bound_is_reservation);
}

// A cluster made by pg_upgrade resumes only from the record the old
// cluster's binary-upgrade stop handed over, or from one of its own.
TEST(StateRecord, UpgradedStartNeedsTheHandOff) {
    using snowflake::judge_upgraded_start;
    using snowflake::UpgradedStart;
    const uint64_t own = 0x7311223344556677ull;
    StateRecord r = sample();
    r.system_id = 0x1111;  // the old cluster's
    EXPECT_EQ(judge_upgraded_start(false, r, own), UpgradedStart::no_state) << "copy forgotten";
    EXPECT_EQ(judge_upgraded_start(true, r, own), UpgradedStart::not_handoff)
        << "a copy from a backup, taken before pg_upgrade ran";
    r.upgrade_handoff = true;
    EXPECT_EQ(judge_upgraded_start(true, r, own), UpgradedStart::resume) << "the hand-off";
    r.upgrade_handoff = false;
    r.system_id = own;
    EXPECT_EQ(judge_upgraded_start(true, r, own), UpgradedStart::resume)
        << "its own record: it issued since";
    r.system_id = 0;
    EXPECT_EQ(judge_upgraded_start(true, r, 0), UpgradedStart::not_handoff) << "format 1";
}

// A run id names the boot its run started in: a record of a run of this boot
// is told from one of an earlier boot, or of a machine restored from a
// snapshot, which boots anew.
TEST(StateRecord, RunIdCarriesTheBoot) {
    const char boot_a[] = "8d1f8e3a-2c55-4a43-9c1e-0b6b1f7d9a10";
    const char boot_b[] = "8d1f8e3a-2c55-4a43-9c1e-0b6b1f7d9a11";
    const uint32_t a = snowflake::boot_fingerprint(boot_a, sizeof boot_a - 1);
    const uint32_t b = snowflake::boot_fingerprint(boot_b, sizeof boot_b - 1);
    EXPECT_NE(a, 0u);
    EXPECT_NE(a, b);
    EXPECT_LT(a, 1u << snowflake::kBootBits);
    EXPECT_EQ(a, snowflake::boot_fingerprint(boot_a, sizeof boot_a - 1)) << "stable";
    const uint64_t run = snowflake::run_id_for(a, 0xFFFFFFFFFFFFFFFFull);
    EXPECT_EQ(snowflake::boot_of(run), a);
    EXPECT_TRUE(snowflake::run_in_boot(run, a));
    EXPECT_FALSE(snowflake::run_in_boot(run, b));
    EXPECT_FALSE(snowflake::run_in_boot(run, 0)) << "an unknown boot matches nothing";
    EXPECT_FALSE(snowflake::run_in_boot(snowflake::run_id_for(0, 12345), 0));
    // The random part survives, so two runs of one boot differ.
    EXPECT_NE(snowflake::run_id_for(a, 1), snowflake::run_id_for(a, 2));
}

TEST(StateRecord, EncodingIsLittleEndianAndFixed) {
    unsigned char bytes[kStateRecordSize];
    encode_state(sample(), bytes);
    EXPECT_EQ(bytes[0], 'S');
    EXPECT_EQ(bytes[1], 'F');
    EXPECT_EQ(bytes[2], 'I');
    EXPECT_EQ(bytes[3], 'D');
    EXPECT_EQ(bytes[8], 7);          // generation, low byte first
    EXPECT_EQ(bytes[24], 0xEF);      // the bound's low byte
    EXPECT_EQ(bytes[24 + 7], 0x01);  // and its high byte
}

TEST(StateRecord, EveryFlippedBitIsDetected) {
    unsigned char bytes[kStateRecordSize];
    encode_state(sample(), bytes);
    for (size_t byte = 0; byte < kStateRecordSize; ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
            unsigned char copy[kStateRecordSize];
            std::copy(bytes, bytes + kStateRecordSize, copy);
            copy[byte] ^= static_cast<unsigned char>(1u << bit);
            StateRecord back;
            // Padding bytes are covered by the CRC too.
            EXPECT_FALSE(decode_state(copy, sizeof copy, &back))
                << "byte " << byte << " bit " << bit;
        }
    }
}

TEST(StateRecord, AllZeroSlotIsInvalid) {
    unsigned char zeros[kStateRecordSize] = {};
    StateRecord back;
    EXPECT_FALSE(decode_state(zeros, sizeof zeros, &back));
}

TEST(StateRecord, Crc32cKnownValue) {
    // The standard check value of CRC-32C.
    const unsigned char text[] = "123456789";
    EXPECT_EQ(snowflake::crc32c(text, 9), 0xE3069283u);
}

TEST(StateRecord, NewestValidSlotWins) {
    StateRecord records[kStateSlots];
    bool valid[kStateSlots] = {true, true};
    records[0].generation = 4;
    records[1].generation = 5;
    EXPECT_EQ(snowflake::newest_slot(records, valid), 1);
    // A torn write of generation 5 leaves generation 4.
    valid[1] = false;
    EXPECT_EQ(snowflake::newest_slot(records, valid), 0);
    valid[0] = false;
    EXPECT_EQ(snowflake::newest_slot(records, valid), -1);
    // The newest by generation, not by bound: a clean shutdown may lower it.
    valid[0] = valid[1] = true;
    records[0].generation = 9;
    records[0].id_bound = 10;
    records[1].generation = 8;
    records[1].id_bound = 1000;
    EXPECT_EQ(snowflake::newest_slot(records, valid), 0);
}

TEST(StateRecord, LayoutOfRecordMatchesLayout) {
    Layout layout;
    snowflake::Error err;
    ASSERT_TRUE(Layout::make(LayoutWidths{5, 5, 12}, 1288834974657, &layout, &err));
    const StateRecord r = snowflake::state_record_for(layout, 42, 3, 11);
    Layout back;
    ASSERT_TRUE(snowflake::layout_of(r, &back, &err));
    EXPECT_TRUE(back.same_as(layout));
    EXPECT_FALSE(back.same_as(Layout()));
}

TEST(StateRecord, SameLayoutComparesWidthsAndEpochOnly) {
    StateRecord a = sample();
    StateRecord b = sample();
    b.generation = 99;
    b.id_bound = 1;
    EXPECT_TRUE(snowflake::same_layout(a, b));
    b.epoch_unix_ms += 1;
    EXPECT_FALSE(snowflake::same_layout(a, b));
    b = sample();
    b.widths.sequence_bits = 11;
    EXPECT_FALSE(snowflake::same_layout(a, b));
}

// Format 1, as snowflake_id 1.2 wrote it (48 bytes, CRC at byte 44), is still
// read: from state files, and from WAL records an older primary wrote.
TEST(StateRecord, ReadsFormat1) {
    unsigned char bytes[snowflake::kStateRecordSizeV1] = {};
    const unsigned char head[] = {'S', 'F', 'I', 'D', 1, 0, 0, 0};
    std::copy(std::begin(head), std::end(head), bytes);
    bytes[8] = 7;      // generation
    bytes[24] = 0x40;  // bound
    bytes[32] = 0;     // datacenter bits
    bytes[33] = 10;    // worker bits
    bytes[34] = 12;    // sequence bits
    bytes[35] = 1;     // exact
    bytes[36] = 0x99;  // run id
    const uint32_t crc = snowflake::crc32c(bytes, 44);
    for (int i = 0; i < 4; ++i) {
        bytes[44 + i] = static_cast<unsigned char>(crc >> (8 * i));
    }
    StateRecord back;
    ASSERT_TRUE(decode_state(bytes, sizeof bytes, &back));
    EXPECT_EQ(back.generation, 7u);
    EXPECT_EQ(back.id_bound, 0x40u);
    EXPECT_EQ(back.widths.worker_bits, 10);
    EXPECT_TRUE(back.exact);
    EXPECT_EQ(back.run_id, 0x99u);
    EXPECT_EQ(back.system_id, 0u) << "format 1 knows no system identifier";
    EXPECT_EQ(back.checkpoint_lsn, 0u);
    EXPECT_EQ(back.node_id, -1) << "format 1 knows no lease";
    EXPECT_FALSE(decode_state(bytes, sizeof bytes - 1, &back)) << "a short record";
}

TEST(StateRecord, Format2NeedsAllItsBytes) {
    unsigned char bytes[kStateRecordSize];
    encode_state(sample(), bytes);
    StateRecord back;
    EXPECT_FALSE(decode_state(bytes, snowflake::kStateRecordSizeV1, &back));
    EXPECT_FALSE(decode_state(bytes, kStateRecordSize - 1, &back));
    EXPECT_TRUE(decode_state(bytes, kStateRecordSize, &back));
}

TEST(StateRecord, OlderThanTheLastCleanShutdown) {
    snowflake::LastShutdown shutdown;
    shutdown.clean = true;
    shutdown.system_id = 0x7311223344556677ull;
    shutdown.checkpoint_lsn = 0x0000000301A2B3C4ull;
    StateRecord r = sample();  // exact, stamped with that very shutdown
    using snowflake::written_before_last_shutdown;
    EXPECT_FALSE(written_before_last_shutdown(r, shutdown)) << "the file the shutdown wrote";
    r.checkpoint_lsn -= 1;
    EXPECT_TRUE(written_before_last_shutdown(r, shutdown)) << "an earlier shutdown's file";
    r = sample();
    r.exact = false;
    r.checkpoint_lsn = 0;
    EXPECT_TRUE(written_before_last_shutdown(r, shutdown))
        << "a reservation, as a backup of a running server holds";
    // What cannot be judged is not flagged.
    r.system_id = 0x1111;
    EXPECT_FALSE(written_before_last_shutdown(r, shutdown)) << "another cluster's file";
    r.system_id = 0;
    EXPECT_FALSE(written_before_last_shutdown(r, shutdown)) << "format 1";
    r = sample();
    r.checkpoint_lsn -= 1;
    shutdown.clean = false;
    EXPECT_FALSE(written_before_last_shutdown(r, shutdown))
        << "after a crash the file holds the last reservation and WAL replay follows";
}
