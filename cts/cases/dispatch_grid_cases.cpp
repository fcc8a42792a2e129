// dispatch.grid.*: dispatches over workgroups in y and z as well as x. The
// workgroup_ids kernel (cts/testdata/README.md) writes each workgroup's id
// into a block of its own, placed by all three ids and the grid's counts, so
// a plugin that drops, swaps or flattens a dimension leaves a block unwritten
// or writes one with the wrong ids; one sentinel block past the grid shows a
// write beyond it.
#include <array>

#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kDispatchNeeds =
    kNeedBuffers | kNeedCommandBuffers | kNeedDispatch | kNeedQueues;
constexpr uint32_t kSentinel = 0xeeeeeeeeu;
constexpr uint32_t kPerWorkgroup = 64;

using Grid = std::array<uint32_t, 3>;

std::string grid_text(const Grid& grid) {
  return to_text(grid[0]) + " x " + to_text(grid[1]) + " x " + to_text(grid[2]);
}

size_t workgroups_in(const Grid& grid) {
  return static_cast<size_t>(grid[0]) * grid[1] * grid[2];
}

// What workgroup_ids writes over |grid|, then one block of sentinels.
std::vector<uint32_t> expected_ids(const Grid& grid) {
  std::vector<uint32_t> values((workgroups_in(grid) + 1) * kPerWorkgroup, kSentinel);
  for (uint32_t z = 0; z < grid[2]; ++z) {
    for (uint32_t y = 0; y < grid[1]; ++y) {
      for (uint32_t x = 0; x < grid[0]; ++x) {
        const size_t first = ((static_cast<size_t>(z) * grid[1] + y) * grid[0] + x) * kPerWorkgroup;
        for (uint32_t l = 0; l < kPerWorkgroup; ++l) {
          values[first + l] = x | y << 8 | z << 16 | l << 24;
        }
      }
    }
  }
  return values;
}

// Records workgroup_ids over |grid| into |out|.
void record_grid(halo_command_buffer_t* commands, halo_executable_t* kernel,
                 halo_buffer_t* out, const Grid& grid) {
  const std::vector<halo_buffer_binding_t> bindings = {{out, 0, HALO_WHOLE_BUFFER}};
  halo_dispatch_params_t params = dispatch_params(kernel, grid[0], bindings, nullptr, 0);
  params.workgroup_count[1] = grid[1];
  params.workgroup_count[2] = grid[2];
  CTS_ASSERT_OK(halo_command_buffer_dispatch(commands, &params));
}

// Runs workgroup_ids over each of |grids|, each into a buffer of its own,
// in one command buffer, and checks every element of every buffer.
void check_grids(Context& ctx, const std::vector<Grid>& grids) {
  ExecutableRef kernel = load_kernel(ctx, "workgroup_ids");
  std::vector<BufferRef> outs;
  CommandBufferRef commands = begin_commands(ctx.device());
  for (const Grid& grid : grids) {
    const std::vector<uint32_t> sentinels((workgroups_in(grid) + 1) * kPerWorkgroup, kSentinel);
    outs.push_back(host_buffer(ctx, sentinels.size() * sizeof(uint32_t)));
    write_values(outs.back().get(), sentinels);
    record_grid(commands.get(), kernel.get(), outs.back().get(), grid);
  }
  end_and_execute(ctx, commands.get());
  for (size_t i = 0; i < grids.size(); ++i) {
    const std::vector<uint32_t> expected = expected_ids(grids[i]);
    check_values(read_values<uint32_t>(outs[i].get(), expected.size()), expected,
                 "workgroup_ids over " + grid_text(grids[i]) +
                     " (each element x | y << 8 | z << 16 | l << 24)",
                 __FILE__, __LINE__);
  }
}

HALO_CTS_CASE("dispatch.grid.three_dimensional", kDispatchNeeds,
              "workgroup_ids over 4 x 3 x 5 workgroups: every workgroup runs once, with its own x, y and z, and nothing is written past the grid") {
  check_grids(ctx, {{4, 3, 5}});
}

HALO_CTS_CASE("dispatch.grid.shapes", kDispatchNeeds,
              "workgroup_ids over 1 x 1 x 9, 1 x 9 x 1, 9 x 1 x 1, 2 x 1 x 3, 1 x 4 x 2 and 3 x 2 x 2 in one command buffer: each grid exact") {
  check_grids(ctx, {{1, 1, 9}, {1, 9, 1}, {9, 1, 1}, {2, 1, 3}, {1, 4, 2}, {3, 2, 2}});
}

}  // namespace
