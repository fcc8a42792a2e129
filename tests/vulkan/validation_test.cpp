// The plugin's validation setup on its own, without a Vulkan instance:
// how HALO_VULKAN_VALIDATION is read, which layer, extensions and pNext
// chain an instance gets from what the loader offers (stubbed here), and
// which messages the messenger callback treats as fatal. Built from
// validation.cpp and vulkan_api.cpp with the SDK's fake host.
#include "validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::vk {
namespace {

constexpr char kLayer[] = "VK_LAYER_KHRONOS_validation";

// Sets HALO_VULKAN_VALIDATION for one scope and restores it after.
class ScopedValidationVariable {
 public:
  explicit ScopedValidationVariable(const char* value) {
    const char* old = std::getenv(kName);
    if (old != nullptr) old_ = old;
    if (value != nullptr) {
      setenv(kName, value, 1);
    } else {
      unsetenv(kName);
    }
  }
  ~ScopedValidationVariable() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }

 private:
  static constexpr char kName[] = "HALO_VULKAN_VALIDATION";
  std::optional<std::string> old_;
};

TEST(ValidationMode, ReadsTheEnvironment) {
  struct Case {
    const char* value;
    ValidationMode mode;
  };
  const Case cases[] = {
      {nullptr, ValidationMode::kOff},
      {"", ValidationMode::kOff},
      {"0", ValidationMode::kOff},
      {"1", ValidationMode::kOn},
      {"on", ValidationMode::kOn},
      {"fatal", ValidationMode::kFatal},
      // Only the exact word is fatal; anything else still validates.
      {"FATAL", ValidationMode::kOn},
      {"fatal ", ValidationMode::kOn},
      {"00", ValidationMode::kOn},
  };
  for (const Case& c : cases) {
    ScopedValidationVariable variable(c.value);
    EXPECT_EQ(validation_mode_from_environment(), c.mode)
        << "HALO_VULKAN_VALIDATION=" << (c.value ? c.value : "(unset)");
  }
}

// What the stubbed loader offers: the instance layers and the validation
// layer's instance extensions.
struct Offer {
  std::vector<std::string> layers;
  std::vector<std::string> layer_extensions;
};
Offer g_offer;

VKAPI_ATTR VkResult VKAPI_CALL enumerate_layers(uint32_t* count,
                                                VkLayerProperties* layers) {
  if (layers == nullptr) {
    *count = static_cast<uint32_t>(g_offer.layers.size());
    return VK_SUCCESS;
  }
  const uint32_t n =
      std::min<uint32_t>(*count, static_cast<uint32_t>(g_offer.layers.size()));
  for (uint32_t i = 0; i < n; ++i) {
    layers[i] = {};
    std::snprintf(layers[i].layerName, sizeof(layers[i].layerName), "%s",
                  g_offer.layers[i].c_str());
  }
  *count = n;
  return n < g_offer.layers.size() ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL enumerate_extensions(
    const char* layer, uint32_t* count, VkExtensionProperties* extensions) {
  const std::vector<std::string> none;
  const std::vector<std::string>& offered =
      layer != nullptr && std::strcmp(layer, kLayer) == 0
          ? g_offer.layer_extensions
          : none;
  if (extensions == nullptr) {
    *count = static_cast<uint32_t>(offered.size());
    return VK_SUCCESS;
  }
  const uint32_t n =
      std::min<uint32_t>(*count, static_cast<uint32_t>(offered.size()));
  for (uint32_t i = 0; i < n; ++i) {
    extensions[i] = {};
    std::snprintf(extensions[i].extensionName,
                  sizeof(extensions[i].extensionName), "%s",
                  offered[i].c_str());
  }
  *count = n;
  return n < offered.size() ? VK_INCOMPLETE : VK_SUCCESS;
}

class ValidationSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    library_.vkEnumerateInstanceLayerProperties = &enumerate_layers;
    library_.vkEnumerateInstanceExtensionProperties = &enumerate_extensions;
    context_.host = sdk::testing::fake_host();
    g_offer = {};
  }

  Library library_;
  MessengerContext context_;
  ValidationSetup setup_;
};

TEST_F(ValidationSetupTest, OffAsksForNothing) {
  g_offer.layers = {kLayer};
  EXPECT_EQ(setup_.prepare(library_, ValidationMode::kOff, &context_), nullptr);
  EXPECT_EQ(setup_.layer_count, 0u);
  EXPECT_EQ(setup_.extension_count, 0u);
  EXPECT_STREQ(setup_.note, "");
}

TEST_F(ValidationSetupTest, MissingLayerRunsWithoutItAndSaysSo) {
  g_offer.layers = {"VK_LAYER_MESA_overlay"};
  EXPECT_EQ(setup_.prepare(library_, ValidationMode::kFatal, &context_),
            nullptr);
  EXPECT_FALSE(setup_.layer_present);
  EXPECT_EQ(setup_.layer_count, 0u);
  EXPECT_EQ(setup_.extension_count, 0u);
  EXPECT_STREQ(setup_.note,
               "validation requested (fatal) but VK_LAYER_KHRONOS_validation "
               "is not installed: running without it");
}

TEST_F(ValidationSetupTest, FullLayerChainsMessengerAndSynchronization) {
  g_offer.layers = {"VK_LAYER_MESA_overlay", kLayer};
  g_offer.layer_extensions = {VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME,
                              VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  const void* chain = setup_.prepare(library_, ValidationMode::kOn, &context_);
  // The messenger comes first so that instance creation is reported too,
  // then the feature struct that turns on synchronization validation.
  ASSERT_EQ(chain, &setup_.messenger_info);
  EXPECT_EQ(setup_.messenger_info.pNext, &setup_.features);
  EXPECT_EQ(setup_.messenger_info.pfnUserCallback, &on_validation_message);
  EXPECT_EQ(setup_.messenger_info.pUserData, &context_);
  ASSERT_EQ(setup_.features.enabledValidationFeatureCount, 1u);
  EXPECT_EQ(setup_.features.pEnabledValidationFeatures[0],
            VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT);
  ASSERT_EQ(setup_.layer_count, 1u);
  EXPECT_STREQ(setup_.layers[0], kLayer);
  ASSERT_EQ(setup_.extension_count, 2u);
  EXPECT_STREQ(setup_.extensions[0], VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  EXPECT_STREQ(setup_.extensions[1], VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  EXPECT_STREQ(setup_.note,
               "validation on (VK_LAYER_KHRONOS_validation with "
               "synchronization validation)");
}

TEST_F(ValidationSetupTest, LayerWithoutExtensionsStillValidates) {
  g_offer.layers = {kLayer};
  EXPECT_EQ(setup_.prepare(library_, ValidationMode::kFatal, &context_),
            nullptr);
  EXPECT_TRUE(setup_.layer_present);
  EXPECT_FALSE(setup_.debug_utils);
  ASSERT_EQ(setup_.layer_count, 1u);
  EXPECT_EQ(setup_.extension_count, 0u);
  EXPECT_STREQ(setup_.note,
               "validation fatal (VK_LAYER_KHRONOS_validation, no "
               "synchronization validation)");
}

// Calls the messenger callback with one message.
VkBool32 report(MessengerContext* context,
                VkDebugUtilsMessageTypeFlagsEXT types, const char* id) {
  VkDebugUtilsMessengerCallbackDataEXT data = {};
  data.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT;
  data.pMessageIdName = id;
  data.pMessage = "a message for the test";
  return on_validation_message(VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
                               types, &data, context);
}

TEST(ValidationMessage, ReportsWithoutAbortingUnlessFatal) {
  MessengerContext context;
  context.host = sdk::testing::fake_host();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(report(&context, VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
                   "VUID-test-0001"),
            VK_FALSE);
  const std::string output = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(output.find("halo vulkan: Vulkan error [VUID-test-0001]: a "
                        "message for the test"),
            std::string::npos)
      << output;
}

TEST(ValidationMessageDeathTest, FatalAbortsOnFindingsOfTheLayer) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MessengerContext context;
  context.host = sdk::testing::fake_host();
  context.fatal = true;
  EXPECT_DEATH(
      report(&context, VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
             "VUID-test-0002"),
      "VUID-test-0002.*\n.*aborting \\(HALO_VULKAN_VALIDATION=fatal\\)");
  EXPECT_DEATH(report(&context, VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
                      "test-performance-note"),
               "aborting \\(HALO_VULKAN_VALIDATION=fatal\\)");
  // Loader notes and the layer's own timeline bookkeeping are no findings
  // about the program: they are reported and the process goes on.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(report(&context, VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
                   "Loader Message"),
            VK_FALSE);
  EXPECT_EQ(report(&context, VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
                   "UNASSIGNED-VkSemaphore-state-timeout"),
            VK_FALSE);
  const std::string output = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(output.find("aborting"), std::string::npos) << output;
}

}  // namespace
}  // namespace halo::vk
