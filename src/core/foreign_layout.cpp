#include "foreign_layout.hpp"

#include <cstdio>

#include "epoch.hpp"

namespace snowflake {

namespace {

// Field widths other than time are returned as SQL integers.
constexpr int kMaxForeignFieldBits = 31;

struct Preset {
    const char *name;
    const char *spec;
};

// Each preset is written in the spec language, so it goes through the same
// parser and checks as a user's spec.
constexpr Preset kPresets[] = {
    // Twitter's Snowflake (2010).
    {"twitter", "time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657;unit=1ms"},
    // Discord: internal worker id, then internal process id, then increment.
    // Discord's worker is reported as datacenter_id, its process as worker_id.
    {"discord", "time=42,datacenter=5,worker=5,sequence=12;epoch=2015-01-01T00:00:00Z;unit=1ms"},
    // Instagram's sharded IDs (2012): the logical shard is reported as worker_id.
    {"instagram", "time=41,worker=13,sequence=10;epoch=1314220021721;unit=1ms"},
    // Sonyflake v1 defaults: 10 ms units, the sequence above the machine id.
    {"sonyflake", "time=39,sequence=8,worker=16;epoch=2014-09-01T00:00:00Z;unit=10ms"},
};

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_ci(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

// A piece of the spec and where it starts in the whole text, so that errors
// can point at it.
struct Piece {
    std::string_view text;
    std::size_t pos = 0;
};

Piece trimmed(Piece p) {
    while (!p.text.empty() && is_space(p.text.front())) {
        p.text.remove_prefix(1);
        ++p.pos;
    }
    while (!p.text.empty() && is_space(p.text.back())) {
        p.text.remove_suffix(1);
    }
    return p;
}

// Splits off the text before the first `sep` (or all of it).
Piece next_piece(Piece *rest, char sep) {
    const std::size_t at = rest->text.find(sep);
    Piece head{rest->text.substr(0, at), rest->pos};
    if (at == std::string_view::npos) {
        rest->text = {};
        rest->pos += head.text.size();
    } else {
        rest->text.remove_prefix(at + 1);
        rest->pos += at + 1;
    }
    return head;
}

class SpecParser {
  public:
    SpecParser(std::string_view whole, Error *err) : whole_(whole), err_(err) {}

    bool parse(ForeignLayout *out);

  private:
    // Fails pointing at `p`: "<what> "<p>" at character N", with an
    // optional detail.
    bool bad(Piece p, const char *what, const char *detail = nullptr) {
        // Long texts are cut (at a character boundary) so that the position
        // always fits in the message.
        const std::size_t whole_shown = quoted_prefix_length(whole_, 120);
        const std::size_t part_shown = quoted_prefix_length(p.text, 40);
        const std::size_t position = character_count(whole_.substr(0, p.pos)) + 1;
        if (p.text.empty()) {
            fail(err_, ErrorCode::invalid_spec,
                 "invalid snowflake layout \"%.*s%s\": %s at character %zu",
                 static_cast<int>(whole_shown), whole_.data(),
                 whole_shown < whole_.size() ? "..." : "", what, position);
        } else {
            fail(err_, ErrorCode::invalid_spec,
                 "invalid snowflake layout \"%.*s%s\": %s \"%.*s%s\" at character %zu",
                 static_cast<int>(whole_shown), whole_.data(),
                 whole_shown < whole_.size() ? "..." : "", what, static_cast<int>(part_shown),
                 p.text.data(), part_shown < p.text.size() ? "..." : "", position);
        }
        if (detail != nullptr) {
            set_detail(err_, "%s", detail);
        }
        set_hint(err_,
                 "Use a preset (twitter, discord, instagram, sonyflake) or a spec such as "
                 "\"time=41,datacenter=5,worker=5,sequence=12;epoch=2010-11-04T01:42:54.657Z;"
                 "unit=1ms\".");
        return false;
    }
    bool parse_fields(Piece list, ForeignLayout *out);
    bool parse_option(Piece option, bool *have_epoch, bool *have_unit, ForeignLayout *out);
    bool parse_unit(Piece value, int64_t *unit_ms);

    std::string_view whole_;
    Error *err_;
};

// Reads a decimal integer that fits below `limit`; false otherwise.
bool read_small_int(std::string_view s, int64_t limit, int64_t *out) {
    if (s.empty()) {
        return false;
    }
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + (c - '0');
        if (v > limit) {
            return false;
        }
    }
    *out = v;
    return true;
}

ForeignField *field_for(std::string_view name, ForeignLayout *l) {
    if (equals_ci(name, "time")) {
        return &l->time;
    }
    if (equals_ci(name, "datacenter")) {
        return &l->datacenter;
    }
    if (equals_ci(name, "worker") || equals_ci(name, "machine") || equals_ci(name, "shard")) {
        return &l->worker;
    }
    if (equals_ci(name, "sequence") || equals_ci(name, "increment")) {
        return &l->sequence;
    }
    return nullptr;
}

bool SpecParser::parse_fields(Piece list, ForeignLayout *out) {
    if (trimmed(list).text.empty()) {
        return bad(list, "expected fields, name=bits, before the first ';'");
    }
    // Widths in the order given (most significant first); shifts follow
    // once the total is known.
    ForeignField *order[4] = {};
    int n = 0;
    int total = 0;
    Piece rest = list;
    while (true) {
        const bool last = rest.text.find(',') == std::string_view::npos;
        const Piece item = trimmed(next_piece(&rest, ','));
        Piece value_part = item;
        const Piece name = trimmed(next_piece(&value_part, '='));
        if (item.text.find('=') == std::string_view::npos) {
            return bad(item, "expected name=bits, found");
        }
        ForeignField *field = field_for(name.text, out);
        if (field == nullptr) {
            return bad(name, "unknown field",
                       "Fields are time, datacenter, worker (or machine, shard) and sequence (or "
                       "increment).");
        }
        if (field->bits != 0) {
            return bad(name, "field given twice:");
        }
        const Piece value = trimmed(value_part);
        if (value.text.empty()) {
            return bad(value, "no width after \"=\"");
        }
        int64_t bits = 0;
        const int limit = field == &out->time ? 64 : kMaxForeignFieldBits;
        if (!read_small_int(value.text, limit, &bits) || bits == 0) {
            return bad(value, field == &out->time ? "the time width must be 1 to 64 bits, not"
                                                  : "a field width must be 1 to 31 bits, not");
        }
        field->bits = static_cast<int>(bits);
        order[n++] = field;
        total += field->bits;
        if (last) {
            break;
        }
    }
    if (out->time.bits == 0) {
        return bad(list, "no time field in");
    }
    if (total != 63 && total != 64) {
        char why[96];
        std::snprintf(why, sizeof why, "the widths add up to %d bits, not 63 or 64, in", total);
        return bad(list, why);
    }
    if (total == 64 && order[0] != &out->time) {
        // Only a time field may reach into the sign bit: IDs are ordered
        // by time, and a negative bigint must still sort by it.
        return bad(list, "the widths add up to 64 bits, but the first field is not time, in");
    }
    int shift = total;
    for (int i = 0; i < n; ++i) {
        shift -= order[i]->bits;
        order[i]->shift = shift;
    }
    out->total_bits = total;
    return true;
}

bool SpecParser::parse_unit(Piece value, int64_t *unit_ms) {
    std::string_view t = value.text;
    int64_t scale = 0;
    if (t.size() > 2 && equals_ci(t.substr(t.size() - 2), "ms")) {
        scale = 1;
        t.remove_suffix(2);
    } else if (t.size() > 1 && equals_ci(t.substr(t.size() - 1), "s")) {
        scale = 1000;
        t.remove_suffix(1);
    }
    const std::string_view digits = trimmed(Piece{t, value.pos}).text;
    const bool all_digits =
        !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (scale == 0 || !all_digits) {
        return bad(value, "the unit must be a whole number of ms or s, such as 10ms, not");
    }
    int64_t n = 0;
    if (!read_small_int(digits, kMaxUnitMs, &n) || n == 0 || n * scale > kMaxUnitMs) {
        return bad(value, "the unit must be 1 ms to 1 day, not");
    }
    *unit_ms = n * scale;
    return true;
}

bool SpecParser::parse_option(Piece option, bool *have_epoch, bool *have_unit, ForeignLayout *out) {
    Piece value_part = option;
    const Piece key = trimmed(next_piece(&value_part, '='));
    if (option.text.find('=') == std::string_view::npos) {
        return bad(option, "expected epoch=... or unit=..., found");
    }
    const Piece value = trimmed(value_part);
    if (value.text.empty()) {
        return bad(value, "no value after \"=\"");
    }
    if (equals_ci(key.text, "epoch")) {
        if (*have_epoch) {
            return bad(key, "option given twice:");
        }
        Error inner;
        if (!parse_epoch(value.text, &out->epoch_unix_ms, &inner)) {
            return bad(value, "bad epoch", inner.message);
        }
        *have_epoch = true;
        return true;
    }
    if (equals_ci(key.text, "unit")) {
        if (*have_unit) {
            return bad(key, "option given twice:");
        }
        *have_unit = true;
        return parse_unit(value, &out->unit_ms);
    }
    return bad(key, "unknown option", "After the fields come epoch=... and, optionally, unit=....");
}

bool SpecParser::parse(ForeignLayout *out) {
    ForeignLayout l;
    Piece rest{whole_, 0};
    if (whole_.find(';') == std::string_view::npos) {
        return bad(trimmed(rest), "unknown preset",
                   "The presets are twitter, discord, instagram and sonyflake; a spec has "
                   "\";epoch=...\" after its fields.");
    }
    if (!parse_fields(next_piece(&rest, ';'), &l)) {
        return false;
    }
    bool have_epoch = false;
    bool have_unit = false;
    while (true) {
        const bool last = rest.text.find(';') == std::string_view::npos;
        const Piece option = trimmed(next_piece(&rest, ';'));
        if (option.text.empty()) {
            return bad(option, "empty option");
        }
        if (!parse_option(option, &have_epoch, &have_unit, &l)) {
            return false;
        }
        if (last) {
            break;
        }
    }
    if (!have_epoch) {
        return bad(Piece{whole_, 0}, "no epoch=... in");
    }
    *out = l;
    return true;
}

}  // namespace

bool parse_foreign_layout(std::string_view text, ForeignLayout *out, Error *err) {
    const Piece whole = trimmed(Piece{text, 0});
    for (const Preset &p : kPresets) {
        if (equals_ci(whole.text, p.name)) {
            return SpecParser(p.spec, err).parse(out);
        }
    }
    if (whole.text.empty()) {
        fail(err, ErrorCode::invalid_spec, "invalid snowflake layout \"%.*s\": it is empty",
             static_cast<int>(quoted_prefix_length(text, 120)), text.data());
        set_hint(err, "Use a preset (twitter, discord, instagram, sonyflake) or a spec.");
        return false;
    }
    return SpecParser(text, err).parse(out);
}

bool decode_foreign(const ForeignLayout &layout, int64_t id, ForeignParts *parts, Error *err) {
    if (layout.total_bits == 63 && id < 0) {
        fail(err, ErrorCode::invalid_id, "ID %lld is negative", static_cast<long long>(id));
        set_detail(err, "The layout's fields add up to 63 bits, so the sign bit of its IDs is 0.");
        set_hint(err, "Check that the ID was made with this layout.");
        return false;
    }
    const auto u = static_cast<uint64_t>(id);
    const auto field = [u](ForeignField f) -> uint64_t {
        if (f.bits == 0) {
            return 0;
        }
        const uint64_t mask = f.bits >= 64 ? UINT64_MAX : (uint64_t{1} << f.bits) - 1;
        return (u >> f.shift) & mask;
    };
    const uint64_t ticks = field(layout.time);
    const auto room = static_cast<uint64_t>((kMaxUnixMs - layout.epoch_unix_ms) / layout.unit_ms);
    if (ticks > room) {
        fail(err, ErrorCode::time_out_of_range,
             "ID %lld carries a time after 9999-12-31 under this layout",
             static_cast<long long>(id));
        set_detail(err, "Its time field holds %llu units of %lld ms after the epoch.",
                   static_cast<unsigned long long>(ticks), static_cast<long long>(layout.unit_ms));
        set_hint(err, "Check that the ID was made with this layout.");
        return false;
    }
    parts->unix_ms = layout.epoch_unix_ms + static_cast<int64_t>(ticks) * layout.unit_ms;
    parts->datacenter_id = static_cast<int64_t>(field(layout.datacenter));
    parts->worker_id = static_cast<int64_t>(field(layout.worker));
    parts->sequence = static_cast<int64_t>(field(layout.sequence));
    return true;
}

}  // namespace snowflake
