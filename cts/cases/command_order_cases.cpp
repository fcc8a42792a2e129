// command_order.*: the commands of one command buffer take effect in
// recording order, as if run one after another, even with no barrier between
// them (abi/include/halo/command_buffer.h). A plugin may overlap commands
// whose ranges do not conflict, and must order the rest itself; a dispatch's
// bindings count as read and written.
//
// Each pair case records two commands, A then B, over ranges of one buffer X
// with no barrier between them, runs them, and compares X (and each
// command's own buffer) with A then B applied one after the other on the
// host. Three shapes run in turn: both on the same range, B's range half
// past A's, and B's range half before A's. The hazards:
//   - write_after_write: both write; B's data must win where they overlap;
//   - read_after_write: A writes, B reads (a copy out of X, or saxpy reading
//     X): B must see A's data;
//   - write_after_read: A reads, B writes: A must have seen the old data.
// On a GPU ranges are 2 Mi elements overlapping by 1 Mi, and dispatches span
// tens of thousands of workgroups, so that a device that runs the two
// commands at once or in either order shows it (a CPU device shows it with
// a sixteenth: sizes_for).
#include <algorithm>
#include <cstdio>

#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kTransferNeeds = kNeedBuffers | kNeedCommandBuffers | kNeedQueues;
constexpr uint64_t kDispatchNeeds = kTransferNeeds | kNeedDispatch;

// How far the shapes shift B, in elements (uint32_t); each command touches
// twice as many, and X holds both ranges of every shape and 64 elements
// past them, which no command may touch.
struct Sizes {
  uint64_t overlap;
  constexpr uint64_t length() const { return 2 * overlap; }
  constexpr uint64_t elements() const { return length() + overlap + 64; }
};

// A GPU runs two commands at once, or in either order, only when each spans
// tens of thousands of workgroups: 1 Mi elements (4 MiB). A CPU device runs
// a few workgroups per core at a time, which 64 Ki elements show as well, in
// a sixteenth of the time. Under a sanitizer the suite looks for races and
// memory errors in the plugin, which 16 Ki show, while every instrumented
// element costs: 4 MiB took seconds a case.
constexpr uint64_t kGpuOverlap = uint64_t{1} << 20;
Sizes sizes_for(Context& ctx) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  (void)ctx;
  return {uint64_t{1} << 14};
#else
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_device_query_info(ctx.device(), &info));
  return {info.type == HALO_DEVICE_TYPE_CPU ? uint64_t{1} << 16 : kGpuOverlap};
#endif
}

// Every value a command writes names the command and the element:
// 0x40000000 + (tag << 22) + element. Tag 0 is X's initial data, 1 is A's,
// 2 is B's; a fill writes its tag with kFillElement. All are normal floats
// in [2, 8), so that saxpy copies them exactly (y = 1 * x + 0).
constexpr uint32_t kTagBase = 0x40000000u;
constexpr uint32_t kFillElement = (1u << 22) - 1;
static_assert(Sizes{kGpuOverlap}.elements() < kFillElement,
              "element numbers must fit below the fill's");

uint32_t tagged(uint32_t tag, uint64_t element) {
  return kTagBase + (tag << 22) + static_cast<uint32_t>(element);
}

// What |value| is, for failure messages: "0x40400005 (A's data for element
// 5)"; a value that is no command's data, in decimal.
std::string origin(uint32_t value) {
  const uint32_t tag = (value - kTagBase) >> 22, element = (value - kTagBase) & kFillElement;
  if (value < kTagBase || tag > 2) return std::to_string(value);
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", value);
  static const char* const kWhose[] = {"X's initial data", "A's data", "B's data"};
  if (element == kFillElement) return std::string(hex) + " (" + kWhose[tag] + ": its fill pattern)";
  return std::string(hex) + " (" + kWhose[tag] + " for element " + std::to_string(element) + ")";
}

// Fails the case unless |actual| equals |expected|, naming the first element
// that differs, whose data each value is, and how many differ.
void check_elements(const std::vector<uint32_t>& actual, const std::vector<uint32_t>& expected,
                    const std::string& what, int line) {
  CTS_ASSERT_EQ(actual.size(), expected.size());
  size_t first = 0, wrong = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i] && wrong++ == 0) first = i;
  }
  if (wrong == 0) return;
  fail(__FILE__, line,
       what + ": element " + std::to_string(first) + " is " + origin(actual[first]) +
           ", expected " + origin(expected[first]) + " (" + std::to_string(wrong) + " of " +
           std::to_string(actual.size()) + " differ)");
}

#define CHECK_ELEMENTS(actual, expected, what) check_elements((actual), (expected), (what), __LINE__)

enum class Kind { kFill, kUpdate, kCopy, kDispatch };
enum class Hazard { kWriteAfterWrite, kReadAfterWrite, kWriteAfterRead };

// A range of X, in elements.
struct Range {
  uint64_t first, count;
  uint64_t offset() const { return first * 4; }
  uint64_t bytes() const { return count * 4; }
};

// The kernels a case dispatches, loaded once per case: fill_index writes a
// range, saxpy (a = 1, y = 0) copies one into another buffer.
struct Kernels {
  ExecutableRef fill_index, saxpy;
};

// One command of a pair, writing or reading its range of X: it records
// itself, applies its effect to the host's copy of X, and checks its own
// buffer (a copy's source, or the buffer a reader copies into).
class Command {
 public:
  Command(Context& ctx, const Kernels& kernels, Kind kind, bool writes, uint32_t tag, Range range,
          uint64_t elements)
      : kernels_(kernels), kind_(kind), writes_(writes), tag_(tag), range_(range),
        elements_(elements) {
    CTS_ASSERT(writes_ || kind_ == Kind::kCopy || kind_ == Kind::kDispatch);
    if (kind_ == Kind::kUpdate) {
      for (uint64_t i = 0; i < range_.count; ++i) data_.push_back(tagged(tag_, range_.first + i));
    }
    if (kind_ == Kind::kCopy || (kind_ == Kind::kDispatch && !writes_)) {
      // A writing copy's source holds the tag's data everywhere; a reader's
      // target starts as zeros (saxpy's y).
      own_model_.assign(elements_, 0);
      if (writes_) {
        for (uint64_t i = 0; i < elements_; ++i) own_model_[i] = tagged(tag_, i);
      }
      own_ = host_buffer(ctx, elements_ * 4);
      write_values(own_.get(), own_model_);
    }
  }

  // "a copy reading X[0, 2097152)".
  std::string text() const {
    static const char* const kNames[] = {"a fill", "an update", "a copy", "a dispatch"};
    const char* kernel = kind_ != Kind::kDispatch ? "" : writes_ ? " (fill_index)" : " (saxpy)";
    return std::string(kNames[static_cast<int>(kind_)]) + kernel + (writes_ ? " writing" : " reading") +
           " X[" + std::to_string(range_.first) + ", " + std::to_string(range_.first + range_.count) + ")";
  }

  void record(halo_command_buffer_t* commands, halo_buffer_t* x) const {
    const uint32_t n = static_cast<uint32_t>(range_.count);
    switch (kind_) {
      case Kind::kFill: {
        const uint32_t pattern = tagged(tag_, kFillElement);
        CTS_ASSERT_OK(halo_command_buffer_fill(commands, x, range_.offset(), range_.bytes(), &pattern, 4));
        break;
      }
      case Kind::kUpdate:
        CTS_ASSERT_OK(halo_command_buffer_update(commands, data_.data(), x, range_.offset(), range_.bytes()));
        break;
      case Kind::kCopy:
        CTS_ASSERT_OK(writes_ ? halo_command_buffer_copy(commands, own_.get(), range_.offset(), x,
                                                         range_.offset(), range_.bytes())
                              : halo_command_buffer_copy(commands, x, range_.offset(), own_.get(),
                                                         range_.offset(), range_.bytes()));
        break;
      case Kind::kDispatch: {
        const halo_buffer_binding_t x_binding = {x, range_.offset(), range_.bytes()};
        if (writes_) {
          const FillIndexConstants constants{tagged(tag_, range_.first), n};
          dispatch(commands, kernels_.fill_index.get(), {x_binding}, &constants, sizeof(constants));
        } else {
          const SaxpyConstants constants{1.0f, n};
          dispatch(commands, kernels_.saxpy.get(), {{own_.get(), range_.offset(), range_.bytes()}, x_binding},
                   &constants, sizeof(constants));
        }
        break;
      }
    }
  }

  // Applies the command to |x|, the host's copy of X, as if it ran alone now.
  void apply(std::vector<uint32_t>& x) {
    for (uint64_t i = range_.first; i < range_.first + range_.count; ++i) {
      if (!writes_) {
        own_model_[i] = x[i];  // saxpy: 1 * x + 0, exact.
      } else {
        x[i] = kind_ == Kind::kFill ? tagged(tag_, kFillElement) : tagged(tag_, i);
      }
    }
  }

  // Checks the command's own buffer, if it has one, against apply()'s model.
  void check_own_buffer(const std::string& what) const {
    if (own_.get() == nullptr) return;
    CHECK_ELEMENTS(read_values<uint32_t>(own_.get(), elements_), own_model_,
                   (writes_ ? "the source of " : "the target of ") + text() + ", after " + what);
  }

 private:
  static void dispatch(halo_command_buffer_t* commands, halo_executable_t* kernel,
                       const std::vector<halo_buffer_binding_t>& bindings, const void* constants,
                       uint32_t constant_size) {
    const uint32_t workgroups = workgroups_for(static_cast<uint32_t>(bindings[0].length / 4));
    const halo_dispatch_params_t params =
        dispatch_params(kernel, workgroups, bindings, constants, constant_size);
    CTS_ASSERT_OK(halo_command_buffer_dispatch(commands, &params));
  }

  const Kernels& kernels_;
  Kind kind_;
  bool writes_;
  uint32_t tag_;
  Range range_;
  uint64_t elements_;           // X's, and a buffer of the command's own.
  std::vector<uint32_t> data_;  // An update's source.
  BufferRef own_;
  std::vector<uint32_t> own_model_;
};

// Records |a| then |b| over X with no barrier, for each shape, and checks
// the result against a then b applied serially on the host.
void check_pair(Context& ctx, Kind a, Kind b, Hazard hazard) {
  Kernels kernels;
  if (a == Kind::kDispatch || b == Kind::kDispatch) {
    kernels = {load_kernel(ctx, "fill_index"), load_kernel(ctx, "saxpy")};
  }
  const bool a_writes = hazard != Hazard::kWriteAfterRead;
  const bool b_writes = hazard != Hazard::kReadAfterWrite;
  const Sizes sizes = sizes_for(ctx);
  const uint64_t elements = sizes.elements();
  // Where A's and B's ranges start: the same range, B half past A, B half before A.
  const uint64_t shapes[3][2] = {{0, 0}, {0, sizes.overlap}, {sizes.overlap, 0}};
  for (const auto& shape : shapes) {
    Command first(ctx, kernels, a, a_writes, 1, {shape[0], sizes.length()}, elements);
    Command second(ctx, kernels, b, b_writes, 2, {shape[1], sizes.length()}, elements);
    std::vector<uint32_t> model(elements);
    for (uint64_t i = 0; i < elements; ++i) model[i] = tagged(0, i);
    BufferRef x = host_buffer(ctx, elements * 4);
    write_values(x.get(), model);
    CommandBufferRef commands = begin_commands(ctx.device());
    first.record(commands.get(), x.get());
    second.record(commands.get(), x.get());
    end_and_execute(ctx, commands.get());
    first.apply(model);
    second.apply(model);
    const std::string what = "A = " + first.text() + " then B = " + second.text() + ", no barrier";
    CHECK_ELEMENTS(read_values<uint32_t>(x.get(), elements), model, "X after " + what);
    first.check_own_buffer(what);
    second.check_own_buffer(what);
  }
}

// --- write after write: B's data wins ---------------------------------------------------

HALO_CTS_CASE("command_order.fill_then_fill.write_after_write", kTransferNeeds,
              "two fills of overlapping ranges, no barrier: the second's pattern wins") {
  check_pair(ctx, Kind::kFill, Kind::kFill, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.fill_then_update.write_after_write", kTransferNeeds,
              "a fill then an update of overlapping ranges, no barrier: the update's data wins") {
  check_pair(ctx, Kind::kFill, Kind::kUpdate, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.fill_then_copy.write_after_write", kTransferNeeds,
              "a fill then a copy into overlapping ranges, no barrier: the copied data wins") {
  check_pair(ctx, Kind::kFill, Kind::kCopy, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.fill_then_dispatch.write_after_write", kDispatchNeeds,
              "a fill then fill_index over overlapping ranges, no barrier: the kernel's data wins") {
  check_pair(ctx, Kind::kFill, Kind::kDispatch, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_fill.write_after_write", kTransferNeeds,
              "an update then a fill of overlapping ranges, no barrier: the fill's pattern wins") {
  check_pair(ctx, Kind::kUpdate, Kind::kFill, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_update.write_after_write", kTransferNeeds,
              "two updates of overlapping ranges, no barrier: the second's data wins") {
  check_pair(ctx, Kind::kUpdate, Kind::kUpdate, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_copy.write_after_write", kTransferNeeds,
              "an update then a copy into overlapping ranges, no barrier: the copied data wins") {
  check_pair(ctx, Kind::kUpdate, Kind::kCopy, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_dispatch.write_after_write", kDispatchNeeds,
              "an update then fill_index over overlapping ranges, no barrier: the kernel's data wins") {
  check_pair(ctx, Kind::kUpdate, Kind::kDispatch, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_fill.write_after_write", kTransferNeeds,
              "a copy into a range then a fill of an overlapping one, no barrier: the fill's pattern wins") {
  check_pair(ctx, Kind::kCopy, Kind::kFill, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_update.write_after_write", kTransferNeeds,
              "a copy into a range then an update of an overlapping one, no barrier: the update's data wins") {
  check_pair(ctx, Kind::kCopy, Kind::kUpdate, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_copy.write_after_write", kTransferNeeds,
              "two copies from different sources into overlapping ranges, no barrier: the second's data wins") {
  check_pair(ctx, Kind::kCopy, Kind::kCopy, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_dispatch.write_after_write", kDispatchNeeds,
              "a copy into a range then fill_index over an overlapping one, no barrier: the kernel's data wins") {
  check_pair(ctx, Kind::kCopy, Kind::kDispatch, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_fill.write_after_write", kDispatchNeeds,
              "fill_index then a fill of an overlapping range, no barrier: the fill's pattern wins") {
  check_pair(ctx, Kind::kDispatch, Kind::kFill, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_update.write_after_write", kDispatchNeeds,
              "fill_index then an update of an overlapping range, no barrier: the update's data wins") {
  check_pair(ctx, Kind::kDispatch, Kind::kUpdate, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_copy.write_after_write", kDispatchNeeds,
              "fill_index then a copy into an overlapping range, no barrier: the copied data wins") {
  check_pair(ctx, Kind::kDispatch, Kind::kCopy, Hazard::kWriteAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_dispatch.write_after_write", kDispatchNeeds,
              "two fill_index dispatches over overlapping ranges, no barrier: the second's data wins") {
  check_pair(ctx, Kind::kDispatch, Kind::kDispatch, Hazard::kWriteAfterWrite);
}

// --- read after write: B sees A's data --------------------------------------------------

HALO_CTS_CASE("command_order.fill_then_copy.read_after_write", kTransferNeeds,
              "a fill then a copy out of an overlapping range, no barrier: the copy reads the fill's pattern") {
  check_pair(ctx, Kind::kFill, Kind::kCopy, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.fill_then_dispatch.read_after_write", kDispatchNeeds,
              "a fill then saxpy reading an overlapping range, no barrier: the kernel reads the fill's pattern") {
  check_pair(ctx, Kind::kFill, Kind::kDispatch, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_copy.read_after_write", kTransferNeeds,
              "an update then a copy out of an overlapping range, no barrier: the copy reads the update's data") {
  check_pair(ctx, Kind::kUpdate, Kind::kCopy, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.update_then_dispatch.read_after_write", kDispatchNeeds,
              "an update then saxpy reading an overlapping range, no barrier: the kernel reads the update's data") {
  check_pair(ctx, Kind::kUpdate, Kind::kDispatch, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_copy.read_after_write", kTransferNeeds,
              "a copy into a range then a copy out of an overlapping one, no barrier: the second reads the first's data") {
  check_pair(ctx, Kind::kCopy, Kind::kCopy, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.copy_then_dispatch.read_after_write", kDispatchNeeds,
              "a copy into a range then saxpy reading an overlapping one, no barrier: the kernel reads the copied data") {
  check_pair(ctx, Kind::kCopy, Kind::kDispatch, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_copy.read_after_write", kDispatchNeeds,
              "fill_index then a copy out of an overlapping range, no barrier: the copy reads the kernel's data") {
  check_pair(ctx, Kind::kDispatch, Kind::kCopy, Hazard::kReadAfterWrite);
}

HALO_CTS_CASE("command_order.dispatch_then_dispatch.read_after_write", kDispatchNeeds,
              "fill_index then saxpy reading an overlapping range, no barrier: saxpy reads fill_index's data") {
  check_pair(ctx, Kind::kDispatch, Kind::kDispatch, Hazard::kReadAfterWrite);
}

// --- write after read: A saw the old data -----------------------------------------------

HALO_CTS_CASE("command_order.copy_then_fill.write_after_read", kTransferNeeds,
              "a copy out of a range then a fill of an overlapping one, no barrier: the copy read the old data") {
  check_pair(ctx, Kind::kCopy, Kind::kFill, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.copy_then_update.write_after_read", kTransferNeeds,
              "a copy out of a range then an update of an overlapping one, no barrier: the copy read the old data") {
  check_pair(ctx, Kind::kCopy, Kind::kUpdate, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.copy_then_copy.write_after_read", kTransferNeeds,
              "a copy out of a range then a copy into an overlapping one, no barrier: the first read the old data") {
  check_pair(ctx, Kind::kCopy, Kind::kCopy, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.copy_then_dispatch.write_after_read", kDispatchNeeds,
              "a copy out of a range then fill_index over an overlapping one, no barrier: the copy read the old data") {
  check_pair(ctx, Kind::kCopy, Kind::kDispatch, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.dispatch_then_fill.write_after_read", kDispatchNeeds,
              "saxpy reading a range then a fill of an overlapping one, no barrier: saxpy read the old data") {
  check_pair(ctx, Kind::kDispatch, Kind::kFill, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.dispatch_then_update.write_after_read", kDispatchNeeds,
              "saxpy reading a range then an update of an overlapping one, no barrier: saxpy read the old data") {
  check_pair(ctx, Kind::kDispatch, Kind::kUpdate, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.dispatch_then_copy.write_after_read", kDispatchNeeds,
              "saxpy reading a range then a copy into an overlapping one, no barrier: saxpy read the old data") {
  check_pair(ctx, Kind::kDispatch, Kind::kCopy, Hazard::kWriteAfterRead);
}

HALO_CTS_CASE("command_order.dispatch_then_dispatch.write_after_read", kDispatchNeeds,
              "saxpy reading a range then fill_index over an overlapping one, no barrier: saxpy read the old data") {
  check_pair(ctx, Kind::kDispatch, Kind::kDispatch, Hazard::kWriteAfterRead);
}

// --- a long chain -----------------------------------------------------------------------

HALO_CTS_CASE("command_order.chain.mixed_kinds", kDispatchNeeds,
              "a fill, 32 add_one over 1 Mi elements (64 Ki on a CPU device), each followed by a copy logging a slice and a fill beside it, and updates between, with no barrier, give the serial result") {
  // D's first |chain| elements are the chain's (1 Mi on a GPU, as many as
  // the pair cases' shift elsewhere); after them, one block per step that
  // only that step's fill writes (independent of the rest).
  constexpr uint32_t kSteps = 32, kBlock = 4096;
  const uint32_t chain = static_cast<uint32_t>(sizes_for(ctx).overlap), per_step = chain / kSteps;
  constexpr uint32_t kStart = 1000, kUpdated = 500000;
  BufferRef d = host_buffer(ctx, (chain + kSteps * kBlock) * 4);
  BufferRef log = host_buffer(ctx, chain * 4);
  std::vector<uint32_t> d_model(chain + kSteps * kBlock, 7), log_model(chain, 0);
  write_values(d.get(), d_model);
  write_values(log.get(), log_model);
  ExecutableRef add_one = load_kernel(ctx, "add_one");
  std::vector<uint32_t> update(per_step);
  for (uint32_t i = 0; i < per_step; ++i) update[i] = kUpdated + i;

  CommandBufferRef commands = begin_commands(ctx.device());
  halo_command_buffer_t* cb = commands.get();
  CTS_ASSERT_OK(halo_command_buffer_fill(cb, d.get(), 0, chain * 4, &kStart, 4));
  std::fill(d_model.begin(), d_model.begin() + chain, kStart);
  const std::vector<halo_buffer_binding_t> active = {{d.get(), 0, chain * 4}};
  const CountConstants count{chain};
  const halo_dispatch_params_t add = dispatch_params(add_one.get(), workgroups_for(chain), active,
                                                     &count, sizeof(count));
  for (uint32_t step = 0; step < kSteps; ++step) {
    // add_one reads what the fill, the previous add_one or an update wrote.
    CTS_ASSERT_OK(halo_command_buffer_dispatch(cb, &add));
    for (uint32_t i = 0; i < chain; ++i) ++d_model[i];
    // The copy reads this step's count; the next add_one must wait for it.
    const uint32_t slice = step * per_step;
    CTS_ASSERT_OK(halo_command_buffer_copy(cb, d.get(), slice * 4, log.get(), slice * 4, per_step * 4));
    std::copy_n(d_model.begin() + slice, per_step, log_model.begin() + slice);
    const uint32_t block = chain + step * kBlock;
    CTS_ASSERT_OK(halo_command_buffer_fill(cb, d.get(), block * 4, kBlock * 4, &step, 4));
    std::fill_n(d_model.begin() + block, kBlock, step);
    if (step % 8 == 7) {
      // Overwrites the slice just logged: after the copy read it, before the
      // next add_one reads it.
      CTS_ASSERT_OK(halo_command_buffer_update(cb, update.data(), d.get(), slice * 4, per_step * 4));
      std::copy(update.begin(), update.end(), d_model.begin() + slice);
    }
  }
  end_and_execute(ctx, cb);
  CHECK_ELEMENTS(read_values<uint32_t>(log.get(), chain), log_model,
                 "the log of each step's slice (add_one's count so far)");
  CHECK_ELEMENTS(read_values<uint32_t>(d.get(), d_model.size()), d_model,
                 "D after the chain");
}

}  // namespace
