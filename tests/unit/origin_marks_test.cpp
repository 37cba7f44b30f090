#include "core/origin_marks.hpp"

#include <gtest/gtest.h>

using snowflake::OriginMarks;

TEST(OriginMarks, UncheckedUntilMarkedAtTheSameGeneration) {
    OriginMarks marks;
    EXPECT_FALSE(marks.checked(5, 1));
    marks.mark(5, 1);
    EXPECT_TRUE(marks.checked(5, 1));
    EXPECT_FALSE(marks.checked(5, 2)) << "rows that arrived since call for another check";
    EXPECT_FALSE(marks.checked(6, 1)) << "another database is not checked by this one's mark";
    marks.mark(5, 2);
    EXPECT_TRUE(marks.checked(5, 2));
}

TEST(OriginMarks, InvalidDatabaseIsNeverChecked) {
    OriginMarks marks;
    marks.mark(0, 1);
    EXPECT_FALSE(marks.checked(0, 1));
    EXPECT_FALSE(marks.checked(0, 0));
}

TEST(OriginMarks, MoreDatabasesThanSlotsForgetTheOldest) {
    OriginMarks marks;
    for (uint32_t db = 1; db <= OriginMarks::kSlots; ++db) {
        marks.mark(db, 7);
    }
    for (uint32_t db = 1; db <= OriginMarks::kSlots; ++db) {
        EXPECT_TRUE(marks.checked(db, 7)) << db;
    }
    marks.mark(1000, 7);
    EXPECT_TRUE(marks.checked(1000, 7));
    EXPECT_FALSE(marks.checked(1, 7)) << "the slot taken longest ago was reused";
    EXPECT_TRUE(marks.checked(2, 7));
    marks.mark(1000, 8);  // its own slot again, not another
    EXPECT_TRUE(marks.checked(2, 7));
}
