// The conformance suite's case framework, written only against the public C
// API. A case declares what it needs; the runner skips it, with the reason,
// only when the plugin's reported capabilities lack that.
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "halo/halo.h"

namespace halo::cts {

// What a case needs from the device under test. Each bit maps to a reported
// capability, so a skip always names what is missing.
enum Need : uint64_t {
  kNeedNothing = 0,
  kNeedSemaphores = 1u << 0,      // HALO_DEVICE_FEATURE_SEMAPHORES
  kNeedQueues = 1u << 1,          // HALO_DEVICE_FEATURE_QUEUES
  kNeedBuffers = 1u << 2,         // HALO_DEVICE_FEATURE_BUFFERS
  kNeedCommandBuffers = 1u << 3,  // HALO_DEVICE_FEATURE_COMMAND_BUFFERS
  kNeedDispatch = 1u << 4,        // HALO_DEVICE_FEATURE_DISPATCH
  kNeedSecondPlugin = 1u << 5,    // another loaded plugin with semaphores
  kNeedManifest = 1u << 6,        // the plugin's manifest was found
};

class Context;

struct Case {
  const char* name;         // Dotted and unique: "semaphore.signal.upward".
  const char* description;  // One line for cts/README.md and --list.
  uint64_t needs;
  void (*run)(Context& context);
};

// All registered cases, sorted by name.
const std::vector<Case>& all_cases();

// Registers |c| at static-initialisation time (see HALO_CTS_CASE).
struct CaseRegistrar {
  explicit CaseRegistrar(const Case& c);
};

// Thrown by the assertion macros; the worker reports it as FAIL.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by skip(); the worker reports it as SKIP with its reason.
struct Skipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Ends the running case as SKIP with |reason|, for a case that finds in the
// device's reported capabilities that it has nothing to check (a limit the
// device reports as none, members its plugin's ABI predates). |reason| must
// say what is missing.
[[noreturn]] inline void skip(const std::string& reason) { throw Skipped(reason); }

// Returns the reason |needs| are not met by |capabilities| (and the other
// plugins in |context|), or "" when they are.
std::string missing_needs(uint64_t needs, const Context& context);

// What a running case sees: the registry, the plugin under test and a fresh
// device of it, the per-case seed and the testdata folder.
class Context {
 public:
  // |device_index| picks the device under test among |driver|'s devices;
  // |peer_name| names the plugin foreign_device() comes from ("" for the
  // first other plugin that has one).
  Context(halo_registry_t* registry, halo_driver_t* driver,
          std::string plugin_name, uint64_t seed, std::string testdata_dir,
          size_t device_index = 0, std::string peer_name = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  halo_registry_t* registry() const { return registry_; }
  halo_driver_t* driver() const { return driver_; }
  // The index of the device under test among the driver's devices.
  size_t device_index() const { return device_index_; }
  // The device under test, created for this case.
  halo_device_t* device();
  // Another device of the same plugin (the driver's next device, or a second
  // instance of the same physical device when it has only one), created on
  // first use.
  halo_device_t* second_device();
  // A device of another loaded plugin that has semaphores, or NULL: of the
  // peer plugin when one was named, else of the first other plugin whose
  // device can be created.
  halo_device_t* foreign_device();
  const std::string& peer_name() const { return peer_name_; }
  // The plugin foreign_device() came from: "" until a case asked for one,
  // and when there was none.
  const std::string& foreign_plugin_name() const { return foreign_plugin_name_; }
  const halo_device_capabilities_t& capabilities();
  const std::string& plugin_name() const { return plugin_name_; }
  uint64_t seed() const { return seed_; }
  const std::string& testdata_dir() const { return testdata_dir_; }

  // The manifest that ships with the plugin, which the manifest.* cases
  // check: |path|, or "" for a bare library, when |missing_reason| says where
  // none was found (the reason those cases skip with).
  void set_manifest(std::string path, std::string missing_reason);
  const std::string& manifest_path() const { return manifest_path_; }
  const std::string& manifest_missing_reason() const { return manifest_missing_reason_; }

  // Creates a semaphore on |device| (default: the device under test) that the
  // context releases when the case ends.
  halo_semaphore_t* semaphore(uint64_t initial_value,
                              halo_device_t* device = nullptr);

 private:
  halo_device_t* create_device(halo_driver_t* driver, size_t index);
  halo_device_t* device_with_semaphores(halo_driver_t* driver);
  // True when |driver| may provide foreign_device().
  bool is_peer(halo_driver_t* driver) const;

  halo_registry_t* registry_;
  halo_driver_t* driver_;
  std::string plugin_name_;
  uint64_t seed_;
  std::string testdata_dir_;
  size_t device_index_;
  std::string peer_name_;
  std::string foreign_plugin_name_;
  std::string manifest_path_;
  std::string manifest_missing_reason_;
  halo_device_t* device_ = nullptr;
  halo_device_t* second_device_ = nullptr;
  halo_device_t* foreign_device_ = nullptr;
  bool foreign_searched_ = false;
  bool have_capabilities_ = false;
  halo_device_capabilities_t capabilities_ = {};
  std::vector<halo_semaphore_t*> semaphores_;
};

// --- Assertions -------------------------------------------------------------

// Throws Failure "file:line: message".
[[noreturn]] void fail(const char* file, int line, const std::string& message);

// Fills |out_record| with |registry|'s record of the loaded plugin called
// |name|. Returns false when no loaded plugin has that name. The record's
// strings belong to |registry|.
bool find_plugin_record(halo_registry_t* registry, const std::string& name,
                        halo_plugin_record_t* out_record);

// Describes |status| as "CODE: message" and frees it.
std::string take_status_text(halo_status_t status);

template <typename T>
std::string to_text(const T& value) {
  std::ostringstream stream;
  stream << value;
  return stream.str();
}

// Submits a queue execution from plain vectors.
halo_status_t queue_execute(halo_device_t* device,
                            const std::vector<halo_semaphore_t*>& waits,
                            const std::vector<uint64_t>& wait_values,
                            const std::vector<halo_semaphore_t*>& signals,
                            const std::vector<uint64_t>& signal_values);

// A deadline |milliseconds| from now.
halo_time_ns_t deadline_in_ms(int64_t milliseconds);

// Long enough that a conformant plugin never reaches it, short enough that a
// broken one fails well before the runner's timeout.
inline constexpr int64_t kGenerousMs = 20000;

}  // namespace halo::cts

#define HALO_CTS_CONCAT_INNER_(a, b) a##b
#define HALO_CTS_CONCAT_(a, b) HALO_CTS_CONCAT_INNER_(a, b)

// Defines a case: HALO_CTS_CASE("group.name", needs, "what it checks") { … }
// The body receives |ctx| (halo::cts::Context&).
#define HALO_CTS_CASE(case_name, case_needs, case_description)                 \
  static void HALO_CTS_CONCAT_(halo_cts_case_, __LINE__)(                      \
      ::halo::cts::Context & ctx);                                             \
  static const ::halo::cts::CaseRegistrar HALO_CTS_CONCAT_(                    \
      halo_cts_registrar_, __LINE__)(::halo::cts::Case{                        \
      case_name, case_description, case_needs,                                 \
      &HALO_CTS_CONCAT_(halo_cts_case_, __LINE__)});                           \
  static void HALO_CTS_CONCAT_(halo_cts_case_, __LINE__)(                      \
      [[maybe_unused]] ::halo::cts::Context & ctx)

#define CTS_ASSERT(condition)                                               \
  do {                                                                      \
    if (!(condition)) ::halo::cts::fail(__FILE__, __LINE__, #condition);    \
  } while (0)

#define CTS_ASSERT_MSG(condition, message)                                  \
  do {                                                                      \
    if (!(condition)) {                                                     \
      ::halo::cts::fail(__FILE__, __LINE__,                                 \
                        std::string(#condition) + ": " + (message));        \
    }                                                                       \
  } while (0)

#define CTS_ASSERT_EQ(actual, expected)                                     \
  do {                                                                      \
    const auto& cts_actual_ = (actual);                                     \
    const auto& cts_expected_ = (expected);                                 \
    if (!(cts_actual_ == cts_expected_)) {                                  \
      ::halo::cts::fail(__FILE__, __LINE__,                                 \
                        std::string(#actual " == " #expected ": got ") +    \
                            ::halo::cts::to_text(cts_actual_) +             \
                            ", expected " +                                 \
                            ::halo::cts::to_text(cts_expected_));           \
    }                                                                       \
  } while (0)

// Asserts |expression| returns OK; otherwise fails with its code and message.
#define CTS_ASSERT_OK(expression)                                           \
  do {                                                                      \
    halo_status_t cts_status_ = (expression);                               \
    if (cts_status_ != nullptr) {                                           \
      ::halo::cts::fail(__FILE__, __LINE__,                                 \
                        std::string(#expression " returned ") +             \
                            ::halo::cts::take_status_text(cts_status_));    \
    }                                                                       \
  } while (0)

// Asserts |expression| returns a status with |code| (and a non-empty
// message), and frees it.
#define CTS_ASSERT_STATUS(expression, code)                                 \
  do {                                                                      \
    halo_status_t cts_status_ = (expression);                               \
    const halo_status_code_t cts_code_ = halo_status_code(cts_status_);     \
    const bool cts_has_message_ = halo_status_message(cts_status_)[0] != 0; \
    if (cts_code_ != (code) || !cts_has_message_) {                         \
      ::halo::cts::fail(__FILE__, __LINE__,                                 \
                        std::string(#expression " returned ") +             \
                            ::halo::cts::take_status_text(cts_status_) +    \
                            ", expected " + halo_status_code_name(code) +   \
                            " with a message");                             \
    }                                                                       \
    halo_status_free(cts_status_);                                          \
  } while (0)
