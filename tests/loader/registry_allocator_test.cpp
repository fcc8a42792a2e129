// The application's host allocator (halo_registry_options_t::allocator, ABI
// 1.2): every plugin of the registry takes its objects' host memory from it,
// each registry keeps its own, a malformed one is refused naming the field,
// and options of ABI 1.0's size (without the member) work unchanged.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

// Counts what passes through it, from any thread, and forwards to the
// system. Records a call whose |self| is not its own, or whose alignment
// breaks allocator.h's rule, instead of trusting the loader.
class CountingAllocator {
 public:
  CountingAllocator() {
    allocator_.struct_size = sizeof(allocator_);
    allocator_.self = this;
    allocator_.allocate = &CountingAllocator::allocate;
    allocator_.free = &CountingAllocator::free;
  }
  const halo_allocator_t* get() const { return &allocator_; }
  uint64_t allocations() const { return allocations_.load(); }
  uint64_t frees() const { return frees_.load(); }
  uint64_t defects() const { return defects_.load(); }

 private:
  static void* allocate(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (self == nullptr || counter->allocator_.self != self ||
        alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) {
      if (counter != nullptr) counter->defects_.fetch_add(1);
      return nullptr;
    }
    void* pointer = nullptr;
    if (posix_memalign(&pointer, alignment, size == 0 ? 1 : size) != 0) return nullptr;
    counter->allocations_.fetch_add(1);
    return pointer;
  }
  static void free(void* self, void* pointer) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (pointer == nullptr) return;
    if (counter->allocator_.self != self) counter->defects_.fetch_add(1);
    counter->frees_.fetch_add(1);
    std::free(pointer);
  }

  halo_allocator_t allocator_ = {};
  std::atomic<uint64_t> allocations_{0};
  std::atomic<uint64_t> frees_{0};
  std::atomic<uint64_t> defects_{0};
};

// Options that scan |path| only, with |allocator|.
halo_registry_options_t options_for(const char* const* path,
                                    const halo_allocator_t* allocator) {
  halo_registry_options_t options{};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
  options.plugin_path_count = 1;
  options.plugin_paths = path;
  options.allocator = allocator;
  return options;
}

using RegistryAllocatorTest = LoaderTest;

// Expects halo_registry_create to refuse |allocator| with INVALID_ARGUMENT
// and a message containing |message|, and to leave no registry.
void expect_refused(const halo_allocator_t& allocator, const char* message) {
  const std::string manifest = good_manifest("test_good");
  const char* paths[] = {manifest.c_str()};
  const halo_registry_options_t options = options_for(paths, &allocator);
  halo_registry_t* registry = reinterpret_cast<halo_registry_t*>(0x1);
  expect_status(halo_registry_create(&options, &registry),
                HALO_STATUS_INVALID_ARGUMENT, message);
  EXPECT_EQ(registry, nullptr);
}

TEST_F(RegistryAllocatorTest, RefusesAStructSizeBelowAbi10) {
  CountingAllocator counter;
  halo_allocator_t allocator = *counter.get();
  allocator.struct_size = offsetof(halo_allocator_t, free);
  expect_refused(allocator,
                 "halo_registry_create: options->allocator->struct_size 24 is "
                 "below ABI 1.0's 32");
  EXPECT_EQ(counter.allocations(), 0u);
}

TEST_F(RegistryAllocatorTest, RefusesANullAllocate) {
  CountingAllocator counter;
  halo_allocator_t allocator = *counter.get();
  allocator.allocate = nullptr;
  expect_refused(allocator, "halo_registry_create: options->allocator->allocate is NULL");
}

TEST_F(RegistryAllocatorTest, RefusesANullFree) {
  CountingAllocator counter;
  halo_allocator_t allocator = *counter.get();
  allocator.free = nullptr;
  expect_refused(allocator, "halo_registry_create: options->allocator->free is NULL");
  EXPECT_EQ(counter.allocations(), 0u);
}

// A caller built against ABI 1.0 or 1.1 passes a struct_size that ends
// before |allocator|: whatever lies there is never read, and the plugins get
// libhalo's allocator. One that ends inside the pointer gives none either.
TEST_F(RegistryAllocatorTest, OptionsWithoutTheMemberUseLibhalosAllocator) {
  const std::string manifest = good_manifest("test_good");
  const char* paths[] = {manifest.c_str()};
  CountingAllocator counter;
  for (uint32_t size : {uint32_t{offsetof(halo_registry_options_t, allocator)},
                        uint32_t{offsetof(halo_registry_options_t, allocator) + 4}}) {
    SCOPED_TRACE(size);
    halo_registry_options_t options = options_for(paths, counter.get());
    options.struct_size = size;
    halo_registry_t* registry = nullptr;
    ASSERT_EQ(halo_registry_create(&options, &registry), HALO_OK);
    size_t drivers = 0;
    ASSERT_EQ(halo_registry_driver_count(registry, &drivers), HALO_OK);
    EXPECT_EQ(drivers, 1u);
    halo_registry_release(registry);
  }
  EXPECT_EQ(counter.allocations(), 0u);
  EXPECT_EQ(counter.frees(), 0u);
}

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

// Makes a registry of the cpu plugin with |allocator| (NULL: libhalo's).
halo::Registry cpu_registry(const halo_allocator_t* allocator) {
  const char* paths[] = {HALO_TEST_CPU_MANIFEST};
  const halo_registry_options_t options = options_for(paths, allocator);
  halo_registry_t* registry = nullptr;
  halo_status_t status = halo_registry_create(&options, &registry);
  EXPECT_EQ(status, HALO_OK) << halo_status_message(status);
  halo_status_free(status);
  return halo::Registry(registry);
}

TEST_F(RegistryAllocatorTest, SeesEveryAllocationOfTheCpuPlugin) {
  CountingAllocator counter;
  {
    halo::Registry registry = cpu_registry(counter.get());
    ASSERT_EQ(registry.driver_count(), 1u) << describe(registry.plugins());
    const uint64_t after_driver = counter.allocations();
    EXPECT_GT(after_driver, 0u) << "creating the driver allocated nothing through it";
    halo::Device device = registry.create_device(0);
    const uint64_t after_device = counter.allocations();
    EXPECT_GT(after_device, after_driver);
    halo::Semaphore semaphore = device.create_semaphore(0);
    const uint64_t after_semaphore = counter.allocations();
    EXPECT_GT(after_semaphore, after_device);
    halo_buffer_params_t params{};
    params.struct_size = sizeof(params);
    params.size = 256;
    params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_MAPPING;
    params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
    halo_buffer_t* buffer = nullptr;
    ASSERT_EQ(halo_buffer_allocate(device.get(), &params, &buffer), HALO_OK);
    EXPECT_GT(counter.allocations(), after_semaphore);
    // Objects outlive the registry: releasing it first frees nothing of
    // theirs, and the allocator must still be there for them.
    registry = halo::Registry();
    halo_buffer_release(buffer);
  }
  EXPECT_EQ(counter.defects(), 0u);
  EXPECT_EQ(counter.allocations(), counter.frees())
      << "the cpu plugin freed less than it allocated";
}

// The same library in three registries: each one's objects draw from its
// own allocator, or from libhalo's, never from another registry's.
TEST_F(RegistryAllocatorTest, RegistriesKeepTheirOwnAllocators) {
  CountingAllocator first_counter;
  CountingAllocator second_counter;
  halo::Registry first = cpu_registry(first_counter.get());
  halo::Registry plain = cpu_registry(nullptr);
  halo::Registry second = cpu_registry(second_counter.get());
  ASSERT_EQ(first.driver_count(), 1u);
  ASSERT_EQ(plain.driver_count(), 1u);
  ASSERT_EQ(second.driver_count(), 1u);
  const uint64_t first_before = first_counter.allocations();
  const uint64_t second_before = second_counter.allocations();
  {
    halo::Device device = plain.create_device(0);
    halo::Semaphore semaphore = device.create_semaphore(0);
  }
  EXPECT_EQ(first_counter.allocations(), first_before);
  EXPECT_EQ(second_counter.allocations(), second_before);
  {
    halo::Device device = first.create_device(0);
    halo::Semaphore semaphore = device.create_semaphore(0);
  }
  EXPECT_GT(first_counter.allocations(), first_before);
  EXPECT_EQ(second_counter.allocations(), second_before);
  first = halo::Registry();
  second = halo::Registry();
  EXPECT_EQ(first_counter.allocations(), first_counter.frees());
  EXPECT_EQ(second_counter.allocations(), second_counter.frees());
  EXPECT_EQ(first_counter.defects() + second_counter.defects(), 0u);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
