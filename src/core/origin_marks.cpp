#include "origin_marks.hpp"

namespace snowflake {

bool OriginMarks::checked(uint32_t database, uint64_t generation) const {
    for (const Slot &slot : slots_) {
        if (slot.database == database && database != 0) {
            return slot.generation == generation;
        }
    }
    return false;
}

void OriginMarks::mark(uint32_t database, uint64_t generation) {
    if (database == 0) {
        return;
    }
    Slot *target = nullptr;
    for (Slot &slot : slots_) {
        if (slot.database == database) {
            target = &slot;
            break;
        }
        if (target == nullptr && slot.database == 0) {
            target = &slot;
        }
    }
    if (target == nullptr) {
        target = &slots_[next_];
        next_ = (next_ + 1) % kSlots;
    }
    // A check that saw an older generation and ends late may overwrite a
    // newer mark: the database is then checked once more, nothing worse.
    target->database = database;
    target->generation = generation;
}

}  // namespace snowflake
