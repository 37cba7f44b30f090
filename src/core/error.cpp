#include "error.hpp"

#include <cstdio>

namespace snowflake {

bool fail(Error *err, ErrorCode code, const char *fmt, ...) {
    if (err == nullptr) {
        return false;
    }
    *err = Error{};  // value-initialised: every buffer empty
    err->code = code;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
    return false;
}

void set_detail(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->detail, sizeof err->detail, fmt, args);
    va_end(args);
}

void set_hint(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->hint, sizeof err->hint, fmt, args);
    va_end(args);
}

}  // namespace snowflake
