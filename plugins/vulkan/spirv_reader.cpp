// The SPIR-V reader: header and instruction checks, decorations, and the
// bindings, push-constant size and workgroup size of each GLCompute entry
// point.
#include "spirv_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace halo::vk {
namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr size_t kHeaderWords = 5;
// The deepest nesting of structs, arrays, vectors and matrices a push
// constant block may have (the block itself is level 1). Layouts are
// computed recursively, so this also bounds the recursion.
constexpr uint32_t kMaxTypeNesting = 16;
// Type sizes saturate here: the ABI's constant_size is 32 bits, so no push
// constant block may be this large, and sizes never overflow.
constexpr uint64_t kTooLarge = uint64_t{1} << 32;

// Opcodes, decorations, storage classes and execution models used here.
enum Op : uint32_t {
  kOpEntryPoint = 15, kOpExecutionMode = 16, kOpTypeInt = 21,
  kOpTypeFloat = 22, kOpTypeVector = 23, kOpTypeMatrix = 24,
  kOpTypeArray = 28, kOpTypeRuntimeArray = 29, kOpTypeStruct = 30,
  kOpTypePointer = 32, kOpConstant = 43, kOpConstantComposite = 44,
  kOpSpecConstant = 50, kOpSpecConstantComposite = 51, kOpFunction = 54,
  kOpFunctionEnd = 56, kOpFunctionCall = 57, kOpVariable = 59, kOpLoad = 61,
  kOpStore = 62, kOpCopyMemory = 63, kOpCopyMemorySized = 64,
  kOpAccessChain = 65, kOpInBoundsAccessChain = 66, kOpPtrAccessChain = 67,
  kOpArrayLength = 68, kOpInBoundsPtrAccessChain = 70, kOpDecorate = 71,
  kOpMemberDecorate = 72, kOpAtomicLoad = 227, kOpAtomicStore = 228,
  kOpAtomicLast = 242, kOpExecutionModeId = 331,
};
enum Decoration : uint32_t {
  kBlock = 2, kBufferBlock = 3, kArrayStride = 6, kBuiltIn = 11,
  kBinding = 33, kDescriptorSet = 34, kOffset = 35,
};
// Execution modes and the built-in that give a workgroup size.
enum WorkgroupSizeSource : uint32_t {
  kLocalSize = 17, kLocalSizeId = 38, kBuiltInWorkgroupSize = 25,
};
enum StorageClass : uint32_t {
  kUniformConstant = 0, kUniform = 2, kPushConstant = 9, kStorageBuffer = 12,
};
constexpr uint32_t kGLCompute = 5;
constexpr uint32_t kFlagBlock = 1, kFlagBufferBlock = 2;

template <class T>
using HostVector = std::vector<T, sdk::HostAllocator<T>>;
// Converts to the allocator of any element type.
using Alloc = sdk::HostAllocator<char>;

struct MemberOffset {
  uint32_t structure, member, offset;
};
// A global variable a function references (or, with |call|, a function it
// calls).
struct Use {
  uint32_t function, id;
  bool call;
};
struct Entry {
  uint32_t function;
  size_t name_at, interface_begin, interface_end;
};
// The size and nesting of a type, computed once per type id.
struct Layout {
  enum State : uint8_t { kUnknown, kComputing, kKnown };
  uint64_t size = 0;
  uint32_t levels = 0;  // 0 for scalars and pointers.
  State state = kUnknown;
};

uint64_t saturating_multiply(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a >= kTooLarge || b >= kTooLarge / a ? kTooLarge : a * b;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return std::min(a + b, kTooLarge);  // Both are at most 2^32.
}

class Reader {
 public:
  Reader(sdk::Host host, ErrorText* error)
      : error_(error), words_(Alloc(host)), defined_(Alloc(host)),
        set_(Alloc(host)), binding_(Alloc(host)), flags_(Alloc(host)),
        stride_(Alloc(host)), offsets_(Alloc(host)),
        member_base_(Alloc(host)), member_offset_(Alloc(host)),
        layouts_(Alloc(host)), globals_(Alloc(host)), uses_(Alloc(host)),
        seen_(Alloc(host)), entries_(Alloc(host)),
        local_size_at_(Alloc(host)), host_(host) {}

  bool read(const void* data, size_t size, SpirvEntryPoints* out);

 private:
  bool check_header(size_t size);
  bool scan();
  bool record(uint32_t op, size_t at, uint32_t count, uint32_t* function);
  bool record_use(uint32_t op, size_t at, uint32_t count, uint32_t function);
  bool describe(const Entry& entry, size_t compute_entries,
                SpirvEntryPoint* out);
  bool used_globals(const Entry& entry, size_t compute_entries,
                    HostVector<uint32_t>* out);
  bool names_unique(const SpirvEntryPoints& points);
  void workgroup_size(const Entry& entry, uint32_t (&out)[3]) const;
  bool constant_value(uint32_t id, uint32_t* out) const;
  bool classify(uint32_t variable, HostVector<uint32_t>* bindings,
                uint32_t* constant_size, const char* name);
  void index_member_offsets();
  bool constant_block_size(uint32_t variable, uint32_t block, uint64_t* out);
  bool layout(uint32_t type, uint32_t level, const Layout** out);
  bool compute_layout(uint32_t type, uint32_t level, Layout* out);
  bool struct_layout(uint32_t type, uint32_t level, Layout* out);
  bool nesting_too_deep();
  bool fail(const char* format, ...) __attribute__((format(printf, 2, 3)));
  bool valid_id(uint32_t id) const { return id != 0 && id < bound_; }
  uint32_t word(size_t at) const { return words_[at]; }
  // The opcode of the instruction defining |id|, or 0.
  uint32_t op_of(uint32_t id) const {
    return valid_id(id) && defined_[id] != 0 ? words_[defined_[id]] & 0xFFFF
                                             : 0;
  }

  ErrorText* error_;
  HostVector<uint32_t> words_;
  uint32_t version_ = 0;
  uint32_t bound_ = 0;
  HostVector<uint32_t> defined_;  // Word offset of each id's definition.
  HostVector<uint32_t> set_, binding_, flags_, stride_;
  HostVector<MemberOffset> offsets_;
  // Each struct's member offsets, indexed once: those of struct s are
  // member_offset_[member_base_[s] + member] (kNone when undecorated).
  HostVector<size_t> member_base_;
  HostVector<uint32_t> member_offset_;
  HostVector<Layout> layouts_;  // Per type id; sized on first use.
  uint32_t layout_root_ = 0;    // The push constant block being laid out.
  HostVector<uint32_t> globals_;
  HostVector<Use> uses_;        // Sorted by function before a call-tree walk.
  bool uses_sorted_ = false;
  HostVector<uint32_t> seen_;   // Per id: the last walk that reached it.
  uint32_t walks_ = 0;
  HostVector<Entry> entries_;
  // Per function id: the word offset of the LocalSize or LocalSizeId
  // execution mode naming it (0 for none).
  HostVector<uint32_t> local_size_at_;
  // The id decorated BuiltIn WorkgroupSize (0 for none).
  uint32_t workgroup_size_builtin_ = 0;
  sdk::Host host_;
};

// The fewest words an instruction may have when the reader reads its last
// operands (their opcodes' minimum word counts); 1 for every other opcode.
uint32_t minimum_words(uint32_t op) {
  switch (op) {
    case kOpTypePointer:
    case kOpConstant:
    case kOpVariable:
      return 4;
    default:
      return 1;
  }
}

bool Reader::fail(const char* format, ...) {
  char text[400];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(text, sizeof(text), format, arguments);
  va_end(arguments);
  error_->set("malformed or unsupported SPIR-V: %s", text);
  return false;
}

bool Reader::check_header(size_t size) {
  if (size % 4 != 0) return fail("size %zu is not a multiple of 4", size);
  if (size < kHeaderWords * 4) return fail("%zu bytes is shorter than the header", size);
  if (word(0) != kMagic) {
    return fail("magic number 0x%08x is not 0x%08x (a little-endian module)",
                word(0), kMagic);
  }
  version_ = word(1);
  if (version_ < 0x00010000 || version_ > 0x00010600 || (version_ & 0xFF) != 0) {
    return fail("version word 0x%08x is not SPIR-V 1.0 to 1.6", version_);
  }
  bound_ = word(3);
  // Every id needs an instruction of at least two words to define it.
  if (bound_ == 0 || bound_ > words_.size() + 1) {
    return fail("id bound %u does not fit a module of %zu words", bound_,
                words_.size());
  }
  return true;
}

bool Reader::scan() {
  defined_.assign(bound_, 0);
  set_.assign(bound_, kNone);
  binding_.assign(bound_, kNone);
  flags_.assign(bound_, 0);
  stride_.assign(bound_, 0);
  local_size_at_.assign(bound_, 0);
  uint32_t function = 0;
  for (size_t at = kHeaderWords; at < words_.size();) {
    uint32_t count = word(at) >> 16;
    uint32_t op = word(at) & 0xFFFF;
    if (count == 0) return fail("instruction at word %zu has length 0", at);
    if (count > words_.size() - at) {
      return fail("instruction at word %zu (opcode %u) runs past the end", at, op);
    }
    if (!record(op, at, count, &function)) return false;
    at += count;
  }
  if (function != 0) return fail("function %u has no OpFunctionEnd", function);
  return true;
}

bool Reader::record(uint32_t op, size_t at, uint32_t count, uint32_t* function) {
  auto define = [&](size_t result_at) {
    if (count <= result_at - at || !valid_id(word(result_at))) {
      return fail("opcode %u at word %zu has no valid result id", op, at);
    }
    defined_[word(result_at)] = static_cast<uint32_t>(at);
    return true;
  };
  // Later reads take these operands without looking at the word count.
  if (count < minimum_words(op)) {
    return fail("opcode %u at word %zu is too short for its operands", op, at);
  }
  if (op >= 19 && op <= 39) return define(at + 1);  // OpType*
  switch (op) {
    case kOpEntryPoint:
      if (count < 4) return fail("OpEntryPoint at word %zu is too short", at);
      if (word(at + 1) == kGLCompute) {
        entries_.push_back({word(at + 2), at + 3, 0, at + count});
      }
      return true;
    case kOpExecutionMode:
    case kOpExecutionModeId: {
      if (count < 3) return fail("execution mode at word %zu is too short", at);
      const uint32_t mode = word(at + 2);
      if (mode != (op == kOpExecutionMode ? kLocalSize : kLocalSizeId)) {
        return true;
      }
      if (count < 6) {
        return fail("workgroup size at word %zu lacks one of its three sizes",
                    at);
      }
      if (!valid_id(word(at + 1))) {
        return fail("execution mode at word %zu names no valid id", at);
      }
      local_size_at_[word(at + 1)] = static_cast<uint32_t>(at);
      return true;
    }
    case kOpDecorate:
    case kOpMemberDecorate: {
      bool member = op == kOpMemberDecorate;
      size_t first = at + (member ? 3 : 2);
      if (count < (member ? 4u : 3u) || !valid_id(word(at + 1))) {
        return fail("decoration at word %zu names no valid id", at);
      }
      uint32_t target = word(at + 1);
      uint32_t decoration = word(first);
      bool operand = first + 1 < at + count;
      if (member) {
        if (decoration == kOffset && operand) {
          offsets_.push_back({target, word(at + 2), word(first + 1)});
        }
        return true;
      }
      if (decoration == kBlock) flags_[target] |= kFlagBlock;
      if (decoration == kBufferBlock) flags_[target] |= kFlagBufferBlock;
      if (decoration == kDescriptorSet && operand) set_[target] = word(first + 1);
      if (decoration == kBinding && operand) binding_[target] = word(first + 1);
      if (decoration == kArrayStride && operand) stride_[target] = word(first + 1);
      if (decoration == kBuiltIn && operand &&
          word(first + 1) == kBuiltInWorkgroupSize) {
        workgroup_size_builtin_ = target;
      }
      return true;
    }
    case kOpConstant:
    case kOpConstantComposite:
    case kOpSpecConstant:
    case kOpSpecConstantComposite:
      return define(at + 2);
    case kOpVariable:
      if (!define(at + 2)) return false;
      if (*function == 0) globals_.push_back(word(at + 2));
      return true;
    case kOpFunction:
      if (*function != 0) return fail("OpFunction at word %zu nests in another", at);
      if (!define(at + 2)) return false;
      *function = word(at + 2);
      return true;
    case kOpFunctionEnd:
      if (*function == 0) return fail("OpFunctionEnd at word %zu ends no function", at);
      *function = 0;
      return true;
    default:
      return *function == 0 || record_use(op, at, count, *function);
  }
}

bool Reader::record_use(uint32_t op, size_t at, uint32_t count,
                        uint32_t function) {
  // The operands through which a function reaches a global variable.
  size_t first = 0, last = 0;  // Operand word range [first, last).
  bool call = false;
  if (op == kOpLoad || op == kOpArrayLength || op == kOpAccessChain ||
      op == kOpInBoundsAccessChain || op == kOpPtrAccessChain ||
      op == kOpInBoundsPtrAccessChain ||
      (op >= kOpAtomicLoad && op <= kOpAtomicLast && op != kOpAtomicStore)) {
    first = 3, last = 4;
  } else if (op == kOpStore || op == kOpAtomicStore) {
    first = 1, last = 2;
  } else if (op == kOpCopyMemory || op == kOpCopyMemorySized) {
    first = 1, last = 3;
  } else if (op == kOpFunctionCall) {
    first = 3, last = count, call = true;
  } else {
    return true;
  }
  for (size_t i = first; i < last && i < count; ++i) {
    uint32_t id = word(at + i);
    if (!valid_id(id)) return fail("opcode %u at word %zu names id %u", op, at, id);
    uses_.push_back({function, id, call && i == first});
  }
  return true;
}

bool Reader::used_globals(const Entry& entry, size_t compute_entries,
                          HostVector<uint32_t>* out) {
  if (compute_entries == 1) {
    out->assign(globals_.begin(), globals_.end());
    return true;
  }
  size_t name_words = 0;
  while (entry.name_at + name_words < entry.interface_end &&
         std::memchr(&words_[entry.name_at + name_words], 0, 4) == nullptr) {
    ++name_words;
  }
  size_t interface_begin = entry.name_at + name_words + 1;
  if (version_ >= 0x00010400) {
    for (size_t i = interface_begin; i < entry.interface_end; ++i) {
      out->push_back(word(i));
    }
    return true;
  }
  // Before SPIR-V 1.4 the interface names only inputs and outputs: follow
  // the call tree instead. The uses are sorted by function once, and each
  // id remembers the last walk that reached it, so a walk costs what it
  // reaches.
  struct ByFunction {
    bool operator()(const Use& use, uint32_t function) const {
      return use.function < function;
    }
    bool operator()(uint32_t function, const Use& use) const {
      return function < use.function;
    }
  };
  if (!uses_sorted_) {
    std::stable_sort(uses_.begin(), uses_.end(),
                     [](const Use& a, const Use& b) { return a.function < b.function; });
    seen_.assign(bound_, 0);
    uses_sorted_ = true;
  }
  const uint32_t walk = ++walks_;
  HostVector<uint32_t> functions{Alloc(host_)};
  functions.push_back(entry.function);
  seen_[entry.function] = walk;
  for (size_t next = 0; next < functions.size(); ++next) {
    auto uses = std::equal_range(uses_.begin(), uses_.end(), functions[next],
                                 ByFunction());
    for (auto use = uses.first; use != uses.second; ++use) {
      if (seen_[use->id] == walk) continue;
      if (use->call) {
        seen_[use->id] = walk;
        functions.push_back(use->id);
      } else if (op_of(use->id) == kOpVariable) {
        seen_[use->id] = walk;
        out->push_back(use->id);
      }
    }
  }
  return true;
}

void Reader::index_member_offsets() {
  // One pass over the ids and one over the decorations, whatever the
  // number of structs and members: a struct's members are looked up by
  // index, never searched for.
  member_base_.assign(bound_, 0);
  size_t total = 0;
  for (uint32_t id = 1; id < bound_; ++id) {
    if (op_of(id) != kOpTypeStruct) continue;
    member_base_[id] = total;
    total += (word(defined_[id]) >> 16) - 2;
  }
  member_offset_.assign(total, kNone);
  for (const MemberOffset& entry : offsets_) {
    if (op_of(entry.structure) != kOpTypeStruct) continue;
    const uint32_t members = (word(defined_[entry.structure]) >> 16) - 2;
    if (entry.member >= members) continue;
    // The last Offset of a member counts, as when they were searched.
    member_offset_[member_base_[entry.structure] + entry.member] = entry.offset;
  }
}

bool Reader::nesting_too_deep() {
  return fail("push constant block %u nests structs, arrays, vectors or "
              "matrices more than %u levels deep (halo's limit)",
              layout_root_, kMaxTypeNesting);
}

bool Reader::constant_block_size(uint32_t variable, uint32_t block,
                                 uint64_t* out) {
  if (layouts_.empty()) layouts_.assign(bound_, Layout{});
  layout_root_ = block;
  const Layout* block_layout = nullptr;
  if (!layout(block, 1, &block_layout)) return false;
  if (block_layout->size >= kTooLarge) {
    return fail("push constant variable %u is 4 GiB or larger", variable);
  }
  *out = block_layout->size;
  return true;
}

bool Reader::layout(uint32_t type, uint32_t level, const Layout** out) {
  // |level| is where |type| sits in the block (the block is level 1).
  size_t at = valid_id(type) ? defined_[type] : 0;
  if (at == 0) return fail("type %u is not defined", type);
  Layout& known = layouts_[type];
  if (known.state == Layout::kComputing) {
    return fail("type %u contains itself", type);
  }
  if (known.state == Layout::kUnknown) {
    // Only structs, arrays, vectors and matrices lead deeper, so whatever
    // sits below level kMaxTypeNesting + 1 has a parent too deep; failing
    // here bounds the recursion.
    if (level > kMaxTypeNesting + 1) return nesting_too_deep();
    known.state = Layout::kComputing;
    if (!compute_layout(type, level, &known)) return false;
    known.state = Layout::kKnown;
  }
  // A type laid out before, elsewhere, may sit deeper here.
  if (known.levels != 0 && level - 1 + known.levels > kMaxTypeNesting) {
    return nesting_too_deep();
  }
  *out = &known;
  return true;
}

bool Reader::struct_layout(uint32_t type, uint32_t level, Layout* out) {
  const size_t at = defined_[type];
  const uint32_t members = (word(at) >> 16) - 2;
  uint64_t end = 0;
  uint32_t levels = 0;
  for (uint32_t member = 0; member < members; ++member) {
    const uint32_t offset = member_offset_[member_base_[type] + member];
    if (offset == kNone) return fail("member %u of struct %u has no Offset", member, type);
    const Layout* member_layout = nullptr;
    if (!layout(word(at + 2 + member), level + 1, &member_layout)) return false;
    end = std::max(end, saturating_add(offset, member_layout->size));
    levels = std::max(levels, member_layout->levels);
  }
  out->size = end;
  out->levels = levels + 1;
  return true;
}

bool Reader::compute_layout(uint32_t type, uint32_t level, Layout* out) {
  const size_t at = defined_[type];
  const uint32_t count = word(at) >> 16;
  const uint32_t op = word(at) & 0xFFFF;
  auto operand = [&](uint32_t index) { return index < count ? word(at + index) : 0; };
  const Layout* element = nullptr;
  switch (op) {
    case kOpTypeInt:
    case kOpTypeFloat:
      out->size = operand(2) / 8;
      return true;
    case kOpTypeVector:
    case kOpTypeMatrix:
      if (!layout(operand(2), level + 1, &element)) return false;
      out->size = saturating_multiply(element->size, operand(3));
      out->levels = element->levels + 1;
      return true;
    case kOpTypeArray: {
      const uint32_t length_id = operand(3);
      if (op_of(length_id) != kOpConstant) {
        return fail("array type %u has no constant length", type);
      }
      if (!layout(operand(2), level + 1, &element)) return false;
      const uint64_t stride = stride_[type] != 0 ? stride_[type] : element->size;
      out->size = saturating_multiply(stride, word(defined_[length_id] + 3));
      out->levels = element->levels + 1;
      return true;
    }
    case kOpTypeStruct:
      return struct_layout(type, level, out);
    case kOpTypePointer:
      out->size = 8;
      return true;
    default:
      return fail("type %u (opcode %u) cannot be a push constant member", type, op);
  }
}

bool Reader::classify(uint32_t variable, HostVector<uint32_t>* bindings,
                      uint32_t* constant_size, const char* name) {
  size_t at = defined_[variable];
  if ((word(at) & 0xFFFF) != kOpVariable) return true;  // Not a variable.
  uint32_t pointer = word(at + 1);
  uint32_t storage = word(at + 3);
  if (op_of(pointer) != kOpTypePointer) {
    return fail("variable %u does not have a pointer type", variable);
  }
  uint32_t pointee = word(defined_[pointer] + 3);
  bool storage_buffer = storage == kStorageBuffer ||
                        (storage == kUniform && valid_id(pointee) &&
                         (flags_[pointee] & kFlagBufferBlock) != 0);
  if (storage == kUniform && !storage_buffer) {
    return fail("entry point '%s' uses a uniform buffer (variable %u); halo "
                "binds storage buffers only", name, variable);
  }
  if (storage == kUniformConstant) {
    return fail("entry point '%s' uses an image, sampler or other opaque "
                "resource (variable %u); halo binds storage buffers only",
                name, variable);
  }
  if (storage == kPushConstant) {
    if (op_of(pointee) != kOpTypeStruct) {
      return fail("push constant variable %u is not a struct", variable);
    }
    uint64_t size = 0;
    if (!constant_block_size(variable, pointee, &size)) return false;
    if (*constant_size != 0) {
      return fail("entry point '%s' has two push constant blocks", name);
    }
    *constant_size = static_cast<uint32_t>(size);
    return true;
  }
  if (!storage_buffer) return true;
  if (op_of(pointee) != kOpTypeStruct) {
    return fail("storage buffer variable %u is an array of buffers; halo "
                "binds one buffer per binding", variable);
  }
  if (set_[variable] != 0) {
    return fail("storage buffer variable %u is in descriptor set %d; halo "
                "uses set 0 only", variable, static_cast<int>(set_[variable]));
  }
  if (binding_[variable] == kNone) {
    return fail("storage buffer variable %u has no Binding", variable);
  }
  bindings->push_back(binding_[variable]);
  return true;
}

bool Reader::describe(const Entry& entry, size_t compute_entries,
                      SpirvEntryPoint* out) {
  size_t length = 0;
  const char* name = reinterpret_cast<const char*>(&words_[entry.name_at]);
  size_t capacity = (entry.interface_end - entry.name_at) * 4;
  while (length < capacity && name[length] != '\0') ++length;
  if (length == capacity) return fail("an entry point name is not terminated");
  if (length >= sizeof(out->name)) {
    return fail("entry point name of %zu bytes exceeds %zu", length,
                sizeof(out->name) - 1);
  }
  std::memcpy(out->name, name, length);
  if (op_of(entry.function) != kOpFunction) {
    return fail("entry point '%s' names no function", out->name);
  }
  HostVector<uint32_t> globals{Alloc(host_)};
  if (!used_globals(entry, compute_entries, &globals)) return false;
  HostVector<uint32_t> bindings{Alloc(host_)};
  for (uint32_t id : globals) {
    if (!valid_id(id) || defined_[id] == 0) {
      return fail("entry point '%s' names undefined id %u", out->name, id);
    }
    if (!classify(id, &bindings, &out->constant_size, out->name)) return false;
  }
  std::sort(bindings.begin(), bindings.end());
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i] != i) {
      return fail("entry point '%s' binds storage buffers {%s%u...}: halo "
                  "needs bindings 0..%zu without gaps or repeats",
                  out->name, i == 0 ? "" : "..., ", bindings[i],
                  bindings.size() - 1);
    }
  }
  out->binding_count = static_cast<uint32_t>(bindings.size());
  workgroup_size(entry, out->workgroup_size);
  return true;
}

bool Reader::constant_value(uint32_t id, uint32_t* out) const {
  // halo specializes nothing, so a specialization constant's default is the
  // value the pipeline gets.
  const uint32_t op = op_of(id);
  if (op != kOpConstant && op != kOpSpecConstant) return false;
  const size_t at = defined_[id];
  // One literal word: an integer of at most 32 bits.
  if ((word(at) >> 16) != 4 || op_of(word(at + 1)) != kOpTypeInt) return false;
  *out = word(at + 3);
  return true;
}

void Reader::workgroup_size(const Entry& entry, uint32_t (&out)[3]) const {
  uint32_t size[3] = {};
  bool known = false;
  if (workgroup_size_builtin_ != 0) {
    // The built-in takes precedence over every entry point's execution
    // mode; a composite of other than plain constants (a specialization
    // constant expression) stays unknown.
    const uint32_t id = workgroup_size_builtin_;
    const uint32_t op = op_of(id);
    if ((op == kOpConstantComposite || op == kOpSpecConstantComposite) &&
        (word(defined_[id]) >> 16) == 6) {
      known = true;
      for (int i = 0; i < 3; ++i) {
        known = known && constant_value(word(defined_[id] + 3 + i), &size[i]);
      }
    }
  } else if (local_size_at_[entry.function] != 0) {
    // LocalSize gives literals, LocalSizeId the ids of constants.
    const size_t at = local_size_at_[entry.function];
    const bool literals = (word(at) & 0xFFFF) == kOpExecutionMode;
    known = true;
    for (int i = 0; i < 3; ++i) {
      if (literals) {
        size[i] = word(at + 3 + i);
      } else {
        known = known && constant_value(word(at + 3 + i), &size[i]);
      }
    }
  }
  for (int i = 0; i < 3; ++i) out[i] = known ? size[i] : 0;
}

bool Reader::read(const void* data, size_t size, SpirvEntryPoints* out) {
  if (data == nullptr) return fail("no data");
  words_.resize(size / 4);
  if (!words_.empty()) std::memcpy(words_.data(), data, words_.size() * 4);
  if (!check_header(size) || !scan()) return false;
  if (entries_.empty()) return fail("the module has no GLCompute entry point");
  index_member_offsets();
  for (const Entry& entry : entries_) {
    SpirvEntryPoint point;
    if (!describe(entry, entries_.size(), &point)) return false;
    out->push_back(point);
  }
  return names_unique(*out);
}

bool Reader::names_unique(const SpirvEntryPoints& points) {
  // Sorted, so that a module of many entry points is not checked pair by
  // pair.
  HostVector<const char*> names{Alloc(host_)};
  names.reserve(points.size());
  for (const SpirvEntryPoint& point : points) names.push_back(point.name);
  std::sort(names.begin(), names.end(), [](const char* a, const char* b) {
    return std::strcmp(a, b) < 0;
  });
  for (size_t i = 1; i < names.size(); ++i) {
    if (std::strcmp(names[i - 1], names[i]) == 0) {
      return fail("two GLCompute entry points are named '%s'", names[i]);
    }
  }
  return true;
}

}  // namespace

bool reflect_spirv(sdk::Host host, const void* data, size_t size,
                   SpirvEntryPoints* out, ErrorText* error) {
  Reader reader(host, error);
  return reader.read(data, size, out);
}

}  // namespace halo::vk
