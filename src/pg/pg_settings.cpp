// Settings: reading, validating and defining the snowflake_id.* parameters.
//
// PostgreSQL only logs a WARNING and keeps the boot value when a preloaded
// library rejects a value from postgresql.conf at start-up. For the layout
// that would mean IDs in a layout the operator never asked for. So before any
// parameter is defined, the raw text the configuration holds for it (still a
// placeholder then) is parsed and checked here; a bad value stops the server
// with a FATAL naming the setting. The definitions that follow can then no
// longer reject anything, and we verify that they did not.
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/epoch.hpp"
#include "core/public_id.hpp"
#include "core/redis_url.hpp"
#include "core/secrets.hpp"
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "libpq-fe.h"
#include "miscadmin.h"
#include "utils/elog.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
}

int sf_worker_id = -1;
int sf_datacenter_id = 0;
int sf_max_clock_drift_ms = 1000;
int sf_max_wait_ms = 100;
int sf_lease_ttl_ms = 60000;
char *sf_registry = nullptr;
char *sf_public_key = nullptr;
int sf_on_clock_step_back = kStepBackError;
int sf_on_replaced = kOnReplacedRefuse;
int sf_takeover = kTakeoverLead;

snowflake::Layout sf_layout;
bool sf_layout_ok = true;
snowflake::Error sf_layout_error;

namespace {

int sf_worker_bits = 10;
int sf_datacenter_bits = 0;
int sf_sequence_bits = 12;
char *sf_epoch_text = nullptr;

constexpr const char *kDefaultEpoch = "2020-01-01T00:00:00Z";
constexpr int64_t kWarnYearsLeft = 5;

// Where an integer setting lives and how it may change.
enum class Kind {
    layout,    // PGC_POSTMASTER integer, plain decimal
    duration,  // PGC_SIGHUP integer in ms, PostgreSQL's syntax with units
    node_id,   // PGC_SIGHUP, plain decimal, held as text (see check_node_id)
};

struct IntSetting {
    const char *name;
    int *value;
    int boot;
    int min;
    int max;
    Kind kind;
    const char *description;
};

// Positions in kIntSettings, for the code that needs one setting by name.
enum SettingIndex { kWorkerId, kDatacenterId, kWorkerBits, kDatacenterBits, kSequenceBits };

constexpr IntSetting kIntSettings[] = {
    {"worker_id", &sf_worker_id, -1, -1, INT_MAX, Kind::node_id,
     "Worker id placed in every ID; -1 means not set, and snowflake_nextval() refuses to run."},
    {"datacenter_id", &sf_datacenter_id, 0, 0, INT_MAX, Kind::node_id,
     "Datacenter id placed in every ID, above the worker id."},
    {"worker_bits", &sf_worker_bits, 10, 0, snowflake::kMaxFieldBits, Kind::layout,
     "Width of the worker id field."},
    {"datacenter_bits", &sf_datacenter_bits, 0, 0, snowflake::kMaxFieldBits, Kind::layout,
     "Width of the datacenter id field."},
    {"sequence_bits", &sf_sequence_bits, 12, 0, snowflake::kMaxFieldBits, Kind::layout,
     "Width of the per-millisecond sequence field."},
    {"max_clock_drift", &sf_max_clock_drift_ms, 1000, 0, INT_MAX, Kind::duration,
     "How far IDs may run ahead of the wall clock (bursts, clock steps back)."},
    {"max_wait", &sf_max_wait_ms, 100, 0, INT_MAX, Kind::duration,
     "How long one call may wait for the clock before raising an error."},
    {"lease_ttl", &sf_lease_ttl_ms, 60000, 3000, INT_MAX, Kind::duration,
     "How long a node id lease from the registry lasts without a renewal."},
};
constexpr int kIntSettingCount = sizeof kIntSettings / sizeof kIntSettings[0];
static_assert(kIntSettings[kWorkerId].value == &sf_worker_id &&
                  kIntSettings[kDatacenterId].value == &sf_datacenter_id &&
                  kIntSettings[kWorkerBits].value == &sf_worker_bits &&
                  kIntSettings[kDatacenterBits].value == &sf_datacenter_bits &&
                  kIntSettings[kSequenceBits].value == &sf_sequence_bits,
              "SettingIndex must follow the order of kIntSettings");

constexpr char kPrefix[] = "snowflake_id.";

const struct config_enum_entry kStepBackOptions[] = {
    {"error", kStepBackError, false},
    {"switch_node", kStepBackSwitchNode, false},
    {nullptr, 0, false},
};

const struct config_enum_entry kOnReplacedOptions[] = {
    {"refuse", kOnReplacedRefuse, false},
    {"lease_another", kOnReplacedLeaseAnother, false},
    {nullptr, 0, false},
};

const struct config_enum_entry kTakeoverOptions[] = {
    {"lead", kTakeoverLead, false},
    {"wait", kTakeoverWait, false},
    {nullptr, 0, false},
};

// Setting names are case-insensitive in PostgreSQL.
bool is_our_setting(const char *name) {
    for (const IntSetting &s : kIntSettings) {
        if (pg_strcasecmp(name, s.name) == 0) {
            return true;
        }
    }
    return pg_strcasecmp(name, "epoch") == 0 || pg_strcasecmp(name, "registry") == 0 ||
           pg_strcasecmp(name, "on_clock_step_back") == 0 ||
           pg_strcasecmp(name, "on_replaced") == 0 || pg_strcasecmp(name, "takeover") == 0 ||
           pg_strcasecmp(name, "public_key") == 0;
}

// PostgreSQL itself only warns about an unknown name under a reserved prefix
// and drops it; a misspelt layout setting would then leave the layout at its
// default. Before our settings are defined, every snowflake_id.* name in the
// configuration is still a placeholder: refuse any that is not ours.
bool check_unknown_names(snowflake::Error *err) {
    int count = 0;
    struct config_generic **vars = sf_compat_guc_variables(&count);
    for (int i = 0; i < count; ++i) {
        const char *name = vars[i]->name;
        if ((vars[i]->flags & GUC_CUSTOM_PLACEHOLDER) != 0 &&
            pg_strncasecmp(name, kPrefix, sizeof kPrefix - 1) == 0 &&
            !is_our_setting(name + sizeof kPrefix - 1)) {
            snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                            "unrecognized configuration parameter \"%s\"", name);
            snowflake::set_hint(
                err,
                "snowflake_id's settings are worker_id, datacenter_id, worker_bits, "
                "datacenter_bits, sequence_bits, epoch, max_clock_drift, max_wait, "
                "registry, lease_ttl, on_clock_step_back, on_replaced, takeover and public_key.");
            return false;
        }
    }
    return true;
}

// The configuration's text for a setting, or nullptr if it sets none. This
// is the reset value: what the files and the command line say, not what a
// session may have SET on a placeholder before the library was loaded (that
// matters without the preload, where the decoders read these values in a
// backend; with the preload the postmaster reads them before any session).
const char *raw_value(const char *name) {
    char full[64];
    snprintf(full, sizeof full, "snowflake_id.%s", name);
    if (GetConfigOption(full, true, false) == nullptr) {
        return nullptr;
    }
    // An empty string is a value (and an invalid one), not "unset": treating
    // it as unset would give `sequence_bits = ''` the default layout.
    return GetConfigOptionResetString(full);
}

// worker_id = 'auto': the registry leases the node id.
bool is_auto(const char *text) {
    return pg_strcasecmp(text, "auto") == 0;
}

// A plain decimal integer, nothing else: PostgreSQL's parse_int would read
// "010" as octal 8, "0x1F" as 31 and round "7.6" to 8, and a node id or a
// width the operator did not write is exactly what must not happen.
bool parse_decimal(const char *text, int *out) {
    const char *p = text;
    while (*p == ' ' || *p == '\t') {
        ++p;
    }
    const bool negative = *p == '-';
    if (*p == '-' || *p == '+') {
        ++p;
    }
    if (p[0] == '0' && p[1] >= '0' && p[1] <= '9') {
        return false;  // a leading zero: parse_int would read octal
    }
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > INT64_C(1) << 32) {
            return false;
        }
        ++p;
        ++digits;
    }
    while (*p == ' ' || *p == '\t') {
        ++p;
    }
    if (digits == 0 || *p != '\0') {
        return false;
    }
    v = negative ? -v : v;
    if (v < INT_MIN || v > INT_MAX) {
        return false;
    }
    *out = static_cast<int>(v);
    return true;
}

bool read_int(const IntSetting &s, int *out, snowflake::Error *err) {
    const char *raw = raw_value(s.name);
    if (raw == nullptr) {
        *out = s.boot;
        return true;
    }
    int v = 0;
    const char *hint = nullptr;
    if (s.value == &sf_worker_id && is_auto(raw)) {
        *out = kWorkerIdAuto;
        return true;
    }
    // Durations take PostgreSQL's syntax with units ('2s'); ids and widths
    // only plain decimals.
    const bool is_duration = s.kind == Kind::duration;
    const bool parsed =
        is_duration ? parse_int(raw, &v, GUC_UNIT_MS, &hint) : parse_decimal(raw, &v);
    if (!parsed) {
        snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                        "invalid value for parameter \"snowflake_id.%s\": \"%s\"", s.name, raw);
        snowflake::set_hint(err, "%s",
                            hint != nullptr ? hint
                            : is_duration   ? "Expected an integer number of milliseconds, or "
                                              "a duration with a unit such as '2s'."
                                            : "Expected a plain decimal integer, without "
                                              "leading zeros.");
        return false;
    }
    if (v < s.min || v > s.max) {
        snowflake::fail(
            err, snowflake::ErrorCode::invalid_setting,
            "%d is outside the valid range for parameter \"snowflake_id.%s\" (%d .. %d)", v, s.name,
            s.min, s.max);
        snowflake::set_hint(err, "Set snowflake_id.%s to a value between %d and %d.", s.name, s.min,
                            s.max);
        return false;
    }
    *out = v;
    return true;
}

// Reads every setting from the configuration's raw text into *values and
// builds the layout; false and *err on the first bad value.
// A PostgreSQL registry's connection string libpq can parse. Checked here
// rather than left to the worker: libpq's parse errors quote the offending
// piece (a password with a stray "%", say), and the worker's failures reach
// snowflake_status.lease_message, every refusal's DETAIL and the log. So
// our message names the problem and the part, never the value.
bool conninfo_ok(const char *text, snowflake::Error *err) {
    char *libpq_error = nullptr;
    PQconninfoOption *options = PQconninfoParse(text, &libpq_error);
    if (options != nullptr) {
        PQconninfoFree(options);
        return true;
    }
    char part[80];
    if (snowflake::bad_percent_escape_part(text, part, sizeof part)) {
        snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                        "the registry's postgresql:// URI has a \"%%\" not followed by two "
                        "hexadecimal digits in its %s",
                        part);
        snowflake::set_hint(err,
                            "libpq percent-decodes every part of a URI: write a literal %% as "
                            "%%25, or give the registry as keyword=value pairs "
                            "(password='...'), or keep the password in the server account's "
                            "~/.pgpass.");
    } else {
        char problem[512];
        snowflake::mask_quoted(libpq_error != nullptr ? libpq_error : "out of memory", problem,
                               sizeof problem);
        const size_t len = strlen(problem);
        if (len > 0 && problem[len - 1] == '\n') {  // libpq's messages end with one
            problem[len - 1] = '\0';
        }
        snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                        "libpq cannot parse the registry's connection string: %s", problem);
        snowflake::set_hint(err,
                            "Write a libpq connection string (host=... dbname=...; quote a value "
                            "with spaces as '...') or a postgresql:// URI.");
    }
    if (libpq_error != nullptr) {
        PQfreemem(libpq_error);
    }
    return false;
}

// A registry setting either store can use: a Redis URL the worker can
// parse, or a connection string libpq can parse, and no URL scheme neither
// store knows (libpq would quote the whole text, password included, in its
// error).
bool registry_setting_ok(const char *text, snowflake::Error *err) {
    switch (snowflake::registry_kind(text)) {
        case snowflake::RegistryKind::postgresql:
            return text[0] == '\0' || conninfo_ok(text, err);
        case snowflake::RegistryKind::redis: {
            snowflake::RedisTarget target;
            return snowflake::parse_redis_url(text, &target, err);
        }
        case snowflake::RegistryKind::unknown_scheme:
            break;
    }
    snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                    "the registry's URL scheme is neither PostgreSQL's nor Redis's");
    snowflake::set_hint(err,
                        "Write a libpq connection string (host=... dbname=...), a postgresql:// "
                        "URI, or a redis:// or redis+unix:// URL.");
    return false;
}

// Whether the configured value of an enum setting (if any) is one of its
// options; err filled otherwise.
static bool enum_known(const char *name, const config_enum_entry *options, const char *listed,
                       snowflake::Error *err) {
    const char *raw = raw_value(name);
    if (raw == nullptr) {
        return true;
    }
    for (const config_enum_entry *e = options; e->name != nullptr; ++e) {
        if (pg_strcasecmp(raw, e->name) == 0) {
            return true;
        }
    }
    snowflake::fail(err, snowflake::ErrorCode::invalid_setting,
                    "invalid value for parameter \"snowflake_id.%s\": \"%s\"", name, raw);
    snowflake::set_hint(err, "Available values: %s.", listed);
    return false;
}

bool read_all(int values[kIntSettingCount], snowflake::Layout *layout, snowflake::Error *err) {
    for (int i = 0; i < kIntSettingCount; ++i) {
        if (!read_int(kIntSettings[i], &values[i], err)) {
            return false;
        }
    }
    // Enums PostgreSQL would reject at start with only a WARNING, keeping
    // the default: refuse them here like every other bad value.
    if (!enum_known("on_clock_step_back", kStepBackOptions, "error, switch_node", err) ||
        !enum_known("on_replaced", kOnReplacedOptions, "refuse, lease_another", err) ||
        !enum_known("takeover", kTakeoverOptions, "lead, wait", err)) {
        return false;
    }
    // A Redis URL the registry worker could not use, likewise (its check
    // hook alone would only warn at start). Never quoted: it may hold a
    // password.
    const char *registry_raw = raw_value("registry");
    if (registry_raw != nullptr && !registry_setting_ok(registry_raw, err)) {
        char message[sizeof err->message];
        snprintf(message, sizeof message,
                 "invalid value for parameter \"snowflake_id.registry\": %s", err->message);
        snprintf(err->message, sizeof err->message, "%s", message);
        return false;
    }
    const char *epoch_raw = raw_value("epoch");
    int64_t epoch_ms = 0;
    if (!snowflake::parse_epoch(epoch_raw != nullptr ? epoch_raw : kDefaultEpoch, &epoch_ms, err)) {
        // The parser names the text; say which setting it came from.
        char message[sizeof err->message];
        snprintf(message, sizeof message, "snowflake_id.epoch: %s", err->message);
        snprintf(err->message, sizeof err->message, "%s", message);
        return false;
    }
    const snowflake::LayoutWidths widths{values[kDatacenterBits], values[kWorkerBits],
                                         values[kSequenceBits]};
    return snowflake::Layout::make(widths, epoch_ms, layout, err);
}

// check_hook for snowflake_id.epoch: ALTER SYSTEM refuses an epoch the next
// start would refuse. (At start-up read_all() has checked it already.)
bool check_epoch(char **newval, void **, GucSource) {
    int64_t ms = 0;
    snowflake::Error err;
    if (!snowflake::parse_epoch(*newval != nullptr ? *newval : "", &ms, &err)) {
        GUC_check_errdetail("%s", err.message);
        GUC_check_errhint("%s", err.hint);
        return false;
    }
    return true;
}

// check_hook for snowflake_id.registry (ALTER SYSTEM; at start read_all()
// has checked it already). The message must not quote the value: it may
// hold a password.
bool check_registry(char **newval, void **, GucSource) {
    snowflake::Error err;
    if (*newval == nullptr || registry_setting_ok(*newval, &err)) {
        return true;
    }
    // Without an errmsg of our own, PostgreSQL's would quote the value.
    GUC_check_errmsg("invalid value for parameter \"snowflake_id.registry\": %s", err.message);
    if (err.detail[0] != '\0') {
        GUC_check_errdetail("%s", err.detail);
    }
    GUC_check_errhint("%s", err.hint);
    return false;
}

// SHOW and current_setting() of snowflake_id.registry for the members of
// pg_read_all_settings (pg_monitor among them), whom GUC_SUPERUSER_ONLY
// lets read it: the string with its passwords masked. Superusers get it
// whole: they read postgresql.conf and pg_file_settings anyway, and need
// the exact string to see what the worker connects with.
const char *show_registry() {
    const char *value = sf_registry != nullptr ? sf_registry : "";
    if (superuser()) {
        return value;
    }
    // Masking puts "***" in place of a value: at most 3 bytes more each.
    const size_t size = 2 * strlen(value) + 16;
    char *masked = static_cast<char *>(palloc(size));
    snowflake::mask_secrets(value, masked, size);
    return masked;
}

// snowflake_id.public_key: 32 hex digits or "" (none). The value is a
// secret: no message quotes it, and PostgreSQL's own would.
bool public_key_ok(const char *text, snowflake::Error *err) {
    snowflake::SipKey key;
    return text == nullptr || text[0] == '\0' ||
           snowflake::public_key_from_setting(text, &key, err);
}

// SHOW and current_setting() for the members of pg_read_all_settings
// (pg_monitor among them), whom GUC_SUPERUSER_ONLY lets read it: the key is
// for superusers alone, as a password is.
const char *show_public_key() {
    if (!superuser()) {
        return "(hidden)";
    }
    return sf_public_key != nullptr ? sf_public_key : "";
}

// A reload logs each changed setting's new value ("parameter \"%s\" changed
// to \"%s\"", at LOG in the postmaster, DEBUG2 in backends), whatever its
// flags: for the key, the line keeps the name and loses the value. The name
// is as the configuration file writes it, in any letter case.
emit_log_hook_type previous_emit_log_hook = nullptr;

bool names_public_key(const char *message) {
    static const char kName[] = "\"snowflake_id.public_key\"";
    const size_t n = sizeof kName - 1;
    for (const char *p = message; *p != '\0'; ++p) {
        if (pg_strncasecmp(p, kName, n) == 0) {
            return true;
        }
    }
    return false;
}

void hide_public_key_in_log(ErrorData *edata) {
    if (edata->message_id != nullptr && edata->message != nullptr &&
        strcmp(edata->message_id, "parameter \"%s\" changed to \"%s\"") == 0 &&
        names_public_key(edata->message)) {
        edata->message = pstrdup("parameter \"snowflake_id.public_key\" changed");
    }
    if (previous_emit_log_hook != nullptr) {
        previous_emit_log_hook(edata);
    }
}

bool check_public_key(char **newval, void **, GucSource) {
    snowflake::Error err;
    if (public_key_ok(*newval, &err)) {
        return true;
    }
    GUC_check_errmsg("invalid value for parameter \"snowflake_id.public_key\"");
    GUC_check_errdetail("%s", err.detail);
    GUC_check_errhint("%s", err.hint);
    return false;
}

// worker_id and datacenter_id reload with SIGHUP. As integer settings,
// PostgreSQL would parse a reloaded '010' as octal 8, '0x1F' as 31 and round
// '7.6' to 8 (start-up refuses those, so a configuration that reloads would
// not start). So they are text settings whose check hook takes only what
// start-up takes, and whose assign hook stores the integer.
bool check_node_id(const IntSetting &s, char **newval, void **extra) {
    int v = 0;
    const bool may_be_auto = s.value == &sf_worker_id;
    if (may_be_auto && *newval != nullptr && is_auto(*newval)) {
        v = kWorkerIdAuto;
    } else if (*newval == nullptr || !parse_decimal(*newval, &v) || v < s.min || v > s.max) {
        GUC_check_errdetail("snowflake_id.%s must be a plain decimal integer between %d and %d%s.",
                            s.name, s.min, s.max, may_be_auto ? ", or 'auto'" : "");
        GUC_check_errhint(
            "Write the number as it is meant, e.g. '7': no leading zeros, no "
            "fraction, no hexadecimal.");
        return false;
    }
    int *stored = static_cast<int *>(sf_compat_guc_extra_alloc(sizeof(int)));
    if (stored == nullptr) {
        return false;
    }
    *stored = v;
    *extra = stored;
    return true;
}

bool check_worker_id(char **newval, void **extra, GucSource) {
    return check_node_id(kIntSettings[kWorkerId], newval, extra);
}
bool check_datacenter_id(char **newval, void **extra, GucSource) {
    return check_node_id(kIntSettings[kDatacenterId], newval, extra);
}
void assign_worker_id(const char *, void *extra) {
    sf_worker_id = *static_cast<int *>(extra);
}
void assign_datacenter_id(const char *, void *extra) {
    sf_datacenter_id = *static_cast<int *>(extra);
}

char *sf_worker_id_text = nullptr;
char *sf_datacenter_id_text = nullptr;

void define_settings() {
    for (const IntSetting &s : kIntSettings) {
        if (s.kind == Kind::node_id) {
            continue;
        }
        char full[64];
        snprintf(full, sizeof full, "snowflake_id.%s", s.name);
        DefineCustomIntVariable(full, s.description, nullptr, s.value, s.boot, s.min, s.max,
                                s.kind == Kind::layout ? PGC_POSTMASTER : PGC_SIGHUP,
                                s.kind == Kind::duration ? GUC_UNIT_MS : 0, nullptr, nullptr,
                                nullptr);
    }
    DefineCustomStringVariable("snowflake_id.worker_id", kIntSettings[kWorkerId].description,
                               nullptr, &sf_worker_id_text, "-1", PGC_SIGHUP, 0, check_worker_id,
                               assign_worker_id, nullptr);
    DefineCustomStringVariable("snowflake_id.datacenter_id",
                               kIntSettings[kDatacenterId].description, nullptr,
                               &sf_datacenter_id_text, "0", PGC_SIGHUP, 0, check_datacenter_id,
                               assign_datacenter_id, nullptr);
    // The connection string may hold a password: superusers only, and
    // pg_read_all_settings sees it masked (show_registry). Left out of SHOW
    // ALL and pg_settings, whose reset_val and boot_val columns show the
    // raw value past any show hook.
    DefineCustomStringVariable(
        "snowflake_id.registry",
        "The registry of node ids: a libpq connection string, or a redis:// or "
        "redis+unix:// URL; empty: none.",
        nullptr, &sf_registry, "", PGC_POSTMASTER,
        GUC_SUPERUSER_ONLY | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, check_registry, nullptr,
        show_registry);
    // The default key of public IDs, a secret like a password: superusers
    // only (and pg_read_all_settings), and left out of SHOW ALL and
    // pg_settings even for them, so that a dump of the settings does not
    // carry it.
    DefineCustomStringVariable(
        "snowflake_id.public_key",
        "The key of public IDs without a key argument: 32 hexadecimal digits; empty: none.",
        nullptr, &sf_public_key, "", PGC_SUSET,
        GUC_SUPERUSER_ONLY | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, check_public_key, nullptr,
        show_public_key);
    DefineCustomEnumVariable("snowflake_id.on_clock_step_back",
                             "What a server does when its clock is set back beyond "
                             "max_clock_drift while it runs: error, or switch_node (lease another "
                             "node id from the registry; worker_id = 'auto' only).",
                             nullptr, &sf_on_clock_step_back, kStepBackError, kStepBackOptions,
                             PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomEnumVariable("snowflake_id.on_replaced",
                             "What a server does once a promoted standby of its own holds a node "
                             "id lease: refuse (issue no IDs: an old primary), or lease_another "
                             "(lease another node id and go on).",
                             nullptr, &sf_on_replaced, kOnReplacedRefuse, kOnReplacedOptions,
                             PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomEnumVariable("snowflake_id.takeover",
                             "What a server does with a node id lease whose floor (another "
                             "holder's recorded bound) lies ahead of its clock: lead (issue at "
                             "once, ahead of the clock, on a catch-up clock), or wait (issue "
                             "nothing until the clock reaches the floor).",
                             nullptr, &sf_takeover, kTakeoverLead, kTakeoverOptions, PGC_SIGHUP, 0,
                             nullptr, nullptr, nullptr);
    DefineCustomStringVariable(
        "snowflake_id.epoch", "Instant from which ID timestamps count, ISO-8601 or ms since 1970.",
        nullptr, &sf_epoch_text, kDefaultEpoch, PGC_POSTMASTER, 0, check_epoch, nullptr, nullptr);
    MarkGUCPrefixReserved("snowflake_id");
}

// Messages the postmaster logs once at start.
void log_startup(const snowflake::Layout &layout, int64_t now_ms) {
    char epoch_text[40], end_text[40];
    snowflake::format_utc(layout.epoch_unix_ms(), epoch_text, sizeof epoch_text);
    snowflake::format_utc(layout.end_unix_ms(), end_text, sizeof end_text);
    const auto &w = layout.widths();
    ereport(LOG, (errmsg("snowflake_id: layout of %d timestamp, %d datacenter, %d worker and %d "
                         "sequence bits from epoch %s; IDs run out at %s",
                         layout.timestamp_bits(), w.datacenter_bits, w.worker_bits, w.sequence_bits,
                         epoch_text, end_text)));
    const int64_t ms_left = layout.end_unix_ms() - now_ms;
    const int64_t kYearMs = INT64_C(31556952000);  // mean Gregorian year
    if (ms_left < kWarnYearsLeft * kYearMs) {
        ereport(WARNING,
                (errmsg("snowflake_id: the layout's timestamp field runs out at %s, in less than "
                        "%d years",
                        end_text, static_cast<int>(kWarnYearsLeft)),
                 errdetail("After that snowflake_nextval() raises an error; IDs never wrap."),
                 errhint("Plan a layout with more timestamp bits or a later epoch, and see "
                         "docs/durability.md, \"Changing the layout\".")));
    }
    sf_check_step_back_setting(WARNING);
    if (sf_worker_id == kWorkerIdAuto || sf_registry_configured()) {
        sf_check_registry_settings(WARNING);
        // A lease's bound lies lease_ttl ahead of the clock at a renewal, and
        // renewals come every lease_ttl / 3: borrowing further than that runs
        // into the bound, and calls fail as if the lease had expired.
        if (sf_registry_configured() &&
            int64_t{sf_max_clock_drift_ms} * 3 > int64_t{sf_lease_ttl_ms}) {
            ereport(WARNING,
                    (errmsg("snowflake_id.max_clock_drift (%d ms) is more than a third of "
                            "snowflake_id.lease_ttl (%d ms)",
                            sf_max_clock_drift_ms, sf_lease_ttl_ms),
                     errdetail("IDs borrowed that far ahead of the clock can pass the bound "
                               "recorded in the registry, and snowflake_nextval() then refuses "
                               "as if the lease had expired."),
                     errhint("Raise snowflake_id.lease_ttl to at least three times "
                             "max_clock_drift.")));
        }
        return;
    }
    int64_t node = 0;
    snowflake::Error err;
    if (!layout.make_node(sf_datacenter_id, sf_worker_id, &node, &err)) {
        snprintf(err.detail, sizeof err.detail, "%s",
                 "snowflake_nextval() raises an error until this is fixed.");
        sf_report(WARNING, err);
    }
}

}  // namespace

void sf_load_settings(bool preloading) {
    int values[kIntSettingCount];
    snowflake::Layout layout;
    snowflake::Error err;
    bool ok = (!preloading || check_unknown_names(&err)) && read_all(values, &layout, &err);
    const int64_t now_ms = sf_wall_clock_ms();
    if (!preloading) {
        // Only the decoders run without the preload; they report the error.
        // The prefix stays unreserved here: reserving it would delete the
        // configuration's snowflake_id.* placeholders, with a WARNING each,
        // in every session.
        sf_layout_ok = ok;
        if (ok) {
            sf_layout = layout;
        } else {
            sf_layout_error = err;
        }
        return;
    }
    if (ok) {
        ok = layout.check_against_clock(now_ms, &err);
    }
    // A bad key in the configuration would only be warned about and left
    // unset; stop instead, as for every other bad value, never quoting it.
    if (ok && !public_key_ok(raw_value("public_key"), &err)) {
        ok = false;
    }
    if (!ok) {
        sf_report(FATAL, err);
    }
    define_settings();
    previous_emit_log_hook = emit_log_hook;
    emit_log_hook = hide_public_key_in_log;
    for (int i = 0; i < kIntSettingCount; ++i) {
        if (*kIntSettings[i].value != values[i]) {
            ereport(FATAL, (errmsg("snowflake_id.%s was not taken from the configuration",
                                   kIntSettings[i].name),
                            errdetail("Validated %d, but the server holds %d.", values[i],
                                      *kIntSettings[i].value)));
        }
    }
    sf_layout = layout;
    sf_layout_ok = true;
    if (!IsUnderPostmaster) {
        log_startup(layout, now_ms);
    }
}

bool sf_registry_configured() {
    return sf_registry != nullptr && sf_registry[0] != '\0';
}

bool sf_check_registry_settings(int elevel) {
    if (sf_worker_id == kWorkerIdAuto && !sf_registry_configured()) {
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_id.worker_id = 'auto' needs snowflake_id.registry"),
                 errdetail("Only a registry of node ids can hand out a node id that no other "
                           "server uses."),
                 errhint("Set snowflake_id.registry to the connection string of a database "
                         "with snowflake_id installed and restart, or set a worker id.")));
        return false;
    }
    if (sf_worker_id == kWorkerIdAuto && sf_datacenter_id != 0) {
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_id.datacenter_id = %d cannot be combined with worker_id = "
                        "'auto'",
                        sf_datacenter_id),
                 errdetail("With 'auto' the registry leases the whole node id, datacenter and "
                           "worker id together."),
                 errhint("Remove snowflake_id.datacenter_id, or set a static worker id.")));
        return false;
    }
    return true;
}

bool sf_switch_node_enabled() {
    return sf_on_clock_step_back == kStepBackSwitchNode && sf_worker_id == kWorkerIdAuto &&
           sf_registry_configured();
}

bool sf_check_step_back_setting(int elevel) {
    if (sf_on_clock_step_back != kStepBackSwitchNode || sf_switch_node_enabled()) {
        return true;
    }
    ereport(elevel,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake_id.on_clock_step_back = 'switch_node' needs worker_id = 'auto' "
                    "and a registry"),
             errdetail("A server switches to a node id it leases from the registry; a static "
                       "worker id is the operator's choice and is never switched. Until then a "
                       "clock set back beyond max_clock_drift is handled as with 'error'."),
             errhint("Set snowflake_id.worker_id = 'auto' and snowflake_id.registry, or "
                     "on_clock_step_back = 'error'.")));
    return false;
}

const snowflake::Layout &sf_decoding_layout() {
    if (!sf_layout_ok) {
        sf_raise(sf_layout_error);
    }
    return sf_layout;
}
