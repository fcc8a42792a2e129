// A dispatch as a worker pool task: each thread binds the call's argument
// values once, then calls the entry point for every workgroup it claims.
#include "dispatch.hpp"

namespace halo::cpu {
namespace {

class DispatchTask final : public WorkerPool::Task {
 public:
  explicit DispatchTask(const DispatchWork& work) noexcept
      : Task(work.workgroups), work_(work) {}

  void run(WorkerPool::Claimer& claimer) noexcept override {
    const uint32_t count_x = work_.workgroup_count[0];
    const uint32_t count_y = work_.workgroup_count[1];
    // The kernel receives a pointer to this thread's workgroup record; only
    // the id changes between calls.
    halo_cpu_workgroup_t workgroup = {
        {0, 0, 0},
        {count_x, count_y, work_.workgroup_count[2]}};
    const halo_cpu_workgroup_t* workgroup_pointer = &workgroup;
    void* values[kMaxCallArguments];
    work_.entry_point->bind(values, &workgroup_pointer, work_.bindings,
                            work_.constants);
    uint64_t index = 0;
    while (claimer.next(&index)) {
      // x varies fastest, as in a GPU's linear workgroup index.
      uint64_t rest = index / count_x;
      workgroup.id[0] = static_cast<uint32_t>(index % count_x);
      workgroup.id[1] = static_cast<uint32_t>(rest % count_y);
      workgroup.id[2] = static_cast<uint32_t>(rest / count_y);
      work_.entry_point->invoke(values);
    }
  }

 private:
  const DispatchWork& work_;
};

}  // namespace

void run_dispatch(WorkerPool& pool, const DispatchWork& work) noexcept {
  if (work.workgroups == 0) return;
  DispatchTask task(work);
  pool.run(task);
}

}  // namespace halo::cpu
