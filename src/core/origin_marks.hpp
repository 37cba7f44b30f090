// Which databases were checked for restored IDs (src/pg/pg_origins.cpp):
// a database whose extension table snowflake_origin says its data came
// from another server (a logical restore) is checked once before the first
// ID any backend issues in it, and the check is marked here, with the
// generation of origins it saw. Rows arriving in any database's table move
// the generation on, so every database is checked again once.
//
// A fixed number of slots, in shared memory: a database without a slot
// (more databases issuing IDs than slots) is checked again by each new
// backend, which costs time, never correctness.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

namespace snowflake {

class OriginMarks {
  public:
    static constexpr int kSlots = 64;

    // Whether `database` was checked at `generation`.
    bool checked(uint32_t database, uint64_t generation) const;
    // Records that `database` was checked at `generation`: its slot, a free
    // one, or the one taken longest ago.
    void mark(uint32_t database, uint64_t generation);

  private:
    struct Slot {
        uint32_t database = 0;  // 0: free (InvalidOid)
        uint64_t generation = 0;
    };
    Slot slots_[kSlots];
    int next_ = 0;  // the slot to take when none is free or the database's
};

}  // namespace snowflake
