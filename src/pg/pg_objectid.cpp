// MongoDB ObjectIds: objectid_generate() and objectid_timestamp(text).
//
// The per-process part of an ObjectId (5 random bytes and the counter's
// starting point) is drawn in each backend at its first call, never in the
// postmaster: every forked backend would otherwise share it.
#include <algorithm>

#include "core/objectid.hpp"
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(objectid_generate);
PG_FUNCTION_INFO_V1(objectid_timestamp);
}

namespace {

bool process_part_ready = false;
uint8_t process_random[5];
snowflake::ObjectIdCounter counter;

void draw_process_part() {
    uint8_t bytes[8];
    if (!pg_strong_random(bytes, sizeof bytes)) {
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("could not generate random values for an ObjectId")));
    }
    for (int i = 0; i < 5; ++i) {
        process_random[i] = bytes[i];
    }
    counter = snowflake::ObjectIdCounter((uint32_t{bytes[5]} << 16) | (uint32_t{bytes[6]} << 8) |
                                         bytes[7]);
    process_part_ready = true;
}

}  // namespace

extern "C" Datum objectid_generate(PG_FUNCTION_ARGS) {
    (void)fcinfo;
    if (!process_part_ready) {
        draw_process_part();
    }
    uint32_t seconds = 0;
    uint32_t count = 0;
    for (;;) {
        const int64_t now_ms = sf_wall_clock_ms();
        const int64_t unix_s = now_ms / 1000;
        if (unix_s < 0 || unix_s > int64_t{UINT32_MAX}) {
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("the wall clock (%lld s since 1970) does not fit an ObjectId",
                                   static_cast<long long>(unix_s)),
                            errdetail("An ObjectId's time is 4 bytes of seconds: 1970 to 2106.")));
        }
        if (counter.next(static_cast<uint32_t>(unix_s), &seconds, &count)) {
            break;
        }
        // Every counter of the latest second used is spent: one more would
        // repeat an ObjectId. Sleep until the clock passes that second (at
        // most a second at a time, as the clock may be stepped meanwhile);
        // cancel and statement_timeout end the wait.
        const int64_t until_next_ms = (int64_t{counter.latest_second()} + 1) * 1000 - now_ms;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        std::clamp<int64_t>(until_next_ms, 1, 1000), PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    char hex[snowflake::kObjectIdHexLength + 1];
    snowflake::format_objectid(seconds, process_random, count, hex);
    PG_RETURN_TEXT_P(cstring_to_text(hex));
}

extern "C" Datum objectid_timestamp(PG_FUNCTION_ARGS) {
    const text *arg = PG_GETARG_TEXT_PP(0);
    uint32_t seconds = 0;
    snowflake::Error err;
    if (!snowflake::objectid_seconds(std::string_view(VARDATA_ANY(arg), VARSIZE_ANY_EXHDR(arg)),
                                     &seconds, &err)) {
        sf_raise(err);
    }
    PG_RETURN_TIMESTAMPTZ(sf_timestamptz_of(int64_t{seconds} * 1000));
}
