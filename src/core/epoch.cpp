#include "epoch.hpp"

#include <cstdio>

namespace snowflake {

namespace {

constexpr int64_t kMsPerDay = 86400000;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_leap(int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(int64_t y, unsigned m) {
    static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly n digits at pos; advances pos.
bool read_fixed(std::string_view s, std::size_t *pos, int n, int64_t *out) {
    if (*pos + static_cast<std::size_t>(n) > s.size()) {
        return false;
    }
    int64_t v = 0;
    for (int i = 0; i < n; ++i) {
        char c = s[*pos + static_cast<std::size_t>(i)];
        if (!is_digit(c)) {
            return false;
        }
        v = v * 10 + (c - '0');
    }
    *pos += static_cast<std::size_t>(n);
    *out = v;
    return true;
}

bool expect(std::string_view s, std::size_t *pos, char c) {
    if (*pos < s.size() && s[*pos] == c) {
        ++*pos;
        return true;
    }
    return false;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

bool bad_epoch(std::string_view text, Error *err, const char *why) {
    const std::size_t shown = quoted_prefix_length(text, 80);
    fail(err, ErrorCode::invalid_setting, "invalid epoch \"%.*s%s\": %s", static_cast<int>(shown),
         text.data(), shown < text.size() ? "..." : "", why);
    set_hint(err,
             "Write integer milliseconds since 1970-01-01 UTC, or ISO-8601 such as "
             "\"2020-01-01T00:00:00Z\".");
    return false;
}

bool parse_integer_ms(std::string_view s, std::string_view original, int64_t *unix_ms, Error *err) {
    int64_t v = 0;
    for (char c : s) {
        if (!is_digit(c)) {
            return bad_epoch(original, err, "not an integer and not an ISO-8601 date");
        }
        if (v > (kMaxUnixMs - (c - '0')) / 10) {
            return bad_epoch(original, err, "after 9999-12-31T23:59:59.999Z");
        }
        v = v * 10 + (c - '0');
    }
    *unix_ms = v;
    return true;
}

}  // namespace

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    // Shift the year so that it starts in March: the leap day is then last.
    y -= m <= 2 ? 1 : 0;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t mp = (static_cast<int64_t>(m) + 9) % 12;
    const int64_t doy = (153 * mp + 2) / 5 + static_cast<int64_t>(d) - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t *year, unsigned *month, unsigned *day) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const auto d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
    const auto m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (m <= 2 ? 1 : 0);
    *month = m;
    *day = d;
}

bool parse_epoch(std::string_view text, int64_t *unix_ms, Error *err) {
    const std::string_view s = trim(text);
    if (s.empty()) {
        return bad_epoch(text, err, "empty");
    }
    if (s.size() < 10 || s[4] != '-') {
        return parse_integer_ms(s, text, unix_ms, err);
    }

    std::size_t pos = 0;
    int64_t year = 0, month = 0, day = 0;
    if (!read_fixed(s, &pos, 4, &year) || !expect(s, &pos, '-') ||
        !read_fixed(s, &pos, 2, &month) || !expect(s, &pos, '-') || !read_fixed(s, &pos, 2, &day)) {
        return bad_epoch(text, err, "expected YYYY-MM-DD");
    }
    if (year < 1970 || month < 1 || month > 12 || day < 1 ||
        day > days_in_month(year, static_cast<unsigned>(month))) {
        return bad_epoch(text, err, "no such date on or after 1970-01-01");
    }
    int64_t ms_of_day = 0;
    int64_t offset_ms = 0;
    if (pos < s.size()) {
        if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') {
            return bad_epoch(text, err, "expected 'T' after the date");
        }
        ++pos;
        int64_t hh = 0, mi = 0, ss = 0, frac = 0;
        if (!read_fixed(s, &pos, 2, &hh) || !expect(s, &pos, ':') || !read_fixed(s, &pos, 2, &mi)) {
            return bad_epoch(text, err, "expected HH:MM after the date");
        }
        if (expect(s, &pos, ':')) {
            if (!read_fixed(s, &pos, 2, &ss)) {
                return bad_epoch(text, err, "expected two digits of seconds");
            }
            if (expect(s, &pos, '.')) {
                int digits = 0;
                while (pos < s.size() && is_digit(s[pos])) {
                    if (digits == 3) {
                        return bad_epoch(text, err, "finer than a millisecond");
                    }
                    frac = frac * 10 + (s[pos] - '0');
                    ++digits;
                    ++pos;
                }
                if (digits == 0) {
                    return bad_epoch(text, err, "expected digits after '.'");
                }
                while (digits++ < 3) {
                    frac *= 10;
                }
            }
        }
        if (hh > 23 || mi > 59 || ss > 59) {
            return bad_epoch(text, err, "no such time of day");
        }
        ms_of_day = ((hh * 60 + mi) * 60 + ss) * 1000 + frac;

        // "2019-04-01 00:00 +08:00", as people and some tools write it.
        while (pos < s.size() && s[pos] == ' ') {
            ++pos;
        }
        if (pos >= s.size()) {
            return bad_epoch(text, err,
                             "no time zone; add 'Z' for UTC or an offset such as +08:00");
        }
        if (s[pos] == 'Z' || s[pos] == 'z') {
            ++pos;
        } else if (s[pos] == '+' || s[pos] == '-') {
            const int64_t sign = s[pos] == '-' ? -1 : 1;
            ++pos;
            int64_t oh = 0, om = 0;
            if (!read_fixed(s, &pos, 2, &oh)) {
                return bad_epoch(text, err, "expected a UTC offset such as +08:00");
            }
            if (expect(s, &pos, ':')) {
                if (!read_fixed(s, &pos, 2, &om)) {
                    return bad_epoch(text, err, "expected a UTC offset such as +08:00");
                }
            } else if (pos < s.size()) {
                if (!read_fixed(s, &pos, 2, &om)) {
                    return bad_epoch(text, err, "expected a UTC offset such as +08:00");
                }
            }
            if (oh > 23 || om > 59) {
                return bad_epoch(text, err, "no such UTC offset");
            }
            offset_ms = sign * (oh * 60 + om) * 60000;
        } else {
            return bad_epoch(text, err, "expected 'Z' or a UTC offset after the time");
        }
    }
    if (pos != s.size()) {
        return bad_epoch(text, err, "unexpected text after the date");
    }
    const int64_t days =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const int64_t ms = days * kMsPerDay + ms_of_day - offset_ms;
    if (ms < 0) {
        return bad_epoch(text, err, "before 1970-01-01T00:00:00Z");
    }
    if (ms > kMaxUnixMs) {
        return bad_epoch(text, err, "after 9999-12-31T23:59:59.999Z");
    }
    *unix_ms = ms;
    return true;
}

void format_utc(int64_t unix_ms, char *buf, std::size_t size) {
    int64_t days = unix_ms / kMsPerDay;
    int64_t rest = unix_ms % kMsPerDay;
    if (rest < 0) {
        rest += kMsPerDay;
        --days;
    }
    int64_t y = 0;
    unsigned m = 0, d = 0;
    civil_from_days(days, &y, &m, &d);
    std::snprintf(buf, size, "%04lld-%02u-%02u %02lld:%02lld:%02lld.%03lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(rest / 3600000),
                  static_cast<long long>(rest / 60000 % 60),
                  static_cast<long long>(rest / 1000 % 60), static_cast<long long>(rest % 1000));
}

}  // namespace snowflake
