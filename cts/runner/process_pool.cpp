#include "process_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "bounded_output.hpp"

extern char** environ;

namespace halo::cts {
namespace {

using Clock = std::chrono::steady_clock;

// One turn reads at most this much from each worker, so a worker that writes
// faster than the runner reads cannot keep the loop away from its deadline
// checks.
constexpr size_t kReadChunk = 16 * 1024;
constexpr int kReadsPerTurn = 16;
// Without a pidfd (kernels before 5.3) an exit that closes no pipe is only
// noticed by looking again after this long.
constexpr int kExitPollMs = 10;

struct Running {
  size_t index = 0;
  pid_t pid = 0;
  int fd = -1;     // Read end of the stdout+stderr pipe; -1 after EOF or kill.
  int pidfd = -1;  // Readable once the process exited; -1 when unsupported.
  Clock::time_point start;
  Clock::time_point deadline;
  // Exited, seen with WNOWAIT: the zombie is kept until finish() so its pid,
  // which is also its process group's id, cannot be reused before we are
  // done killing that group.
  bool exited = false;
  BoundedOutput output;
  ProcessResult result;

  bool done() const { return fd < 0 && exited; }
};

// Starts |argv| with stdout and stderr on a pipe, in a new process group.
bool spawn(const std::vector<std::string>& argv, Running* out, std::string* error) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe2: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  // The clocks start before the spawn: a runner descheduled right after it
  // would otherwise miss all of a short worker's run.
  out->start = Clock::now();
  out->result.started_at = std::chrono::system_clock::now();
  int spawn_error = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes,
                                args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    *error = std::string("posix_spawn: ") + std::strerror(spawn_error);
    return false;
  }
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  out->pid = pid;
  out->fd = pipe_fds[0];
  out->pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  return true;
}

void close_pipe(Running* running) {
  if (running->fd >= 0) close(running->fd);
  running->fd = -1;
}

// Reads what is there, at most kReadsPerTurn chunks; closes the pipe at EOF.
void read_some(Running* running) {
  char buffer[kReadChunk];
  for (int reads = 0; reads < kReadsPerTurn && running->fd >= 0; ++reads) {
    ssize_t n = read(running->fd, buffer, sizeof(buffer));
    if (n > 0) {
      running->output.append(std::string_view(buffer, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    close_pipe(running);  // EOF, or an error that ends the stream alike.
  }
}

// Notes whether the process exited, without reaping it.
void check_exited(Running* running) {
  siginfo_t info = {};
  int result;
  do {
    result = waitid(P_PID, static_cast<id_t>(running->pid), &info,
                    WEXITED | WNOHANG | WNOWAIT);
  } while (result < 0 && errno == EINTR);
  // ECHILD cannot happen for our own unreaped child; treat it as gone.
  if (result < 0 || info.si_pid == running->pid) running->exited = true;
}

void kill_at_deadline(Running* running) {
  running->result.timed_out = true;
  kill(-running->pid, SIGKILL);  // The whole group: helpers the case started too.
  kill(running->pid, SIGKILL);
  close_pipe(running);
  running->exited = true;  // finish() reaps it; SIGKILL makes that prompt.
}

ProcessResult finish(Running* running) {
  int status = 0;
  while (waitpid(running->pid, &status, 0) < 0 && errno == EINTR) {
  }
  close_pipe(running);
  if (running->pidfd >= 0) close(running->pidfd);
  ProcessResult result = std::move(running->result);
  result.output = running->output.take();
  result.duration_s =
      std::chrono::duration<double>(Clock::now() - running->start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
}

// Blocks until a pipe has data or EOF, a process exits, or the earliest
// deadline comes.
void wait_for_activity(const std::vector<Running>& running) {
  std::vector<pollfd> fds;
  auto wake = Clock::time_point::max();
  bool blind = false;  // A process whose exit no descriptor reports.
  for (const Running& r : running) {
    if (r.fd >= 0) fds.push_back({r.fd, POLLIN, 0});
    if (!r.exited && r.pidfd >= 0) fds.push_back({r.pidfd, POLLIN, 0});
    blind |= !r.exited && r.pidfd < 0 && r.fd < 0;
    wake = std::min(wake, r.deadline);
  }
  const auto now = Clock::now();
  long long wait_ms = 0;
  if (wake > now) {
    wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
  }
  if (blind) wait_ms = std::min<long long>(wait_ms, kExitPollMs);
  wait_ms = std::min<long long>(wait_ms, 60 * 60 * 1000);
  poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
}

}  // namespace

void run_processes(const std::vector<std::vector<std::string>>& commands,
                   int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done) {
  size_t next = 0;
  run_processes(
      [&](size_t* out_index, std::vector<std::string>* out_argv) {
        if (next == commands.size()) return false;
        *out_index = next;
        *out_argv = commands[next++];
        return true;
      },
      jobs, timeout_s, on_done);
}

void run_processes(const NextCommand& next, int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done) {
  if (jobs < 1) jobs = 1;
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(timeout_s));
  std::vector<Running> running;
  while (true) {
    size_t index = 0;
    std::vector<std::string> argv;
    while (running.size() < static_cast<size_t>(jobs) && next(&index, &argv)) {
      Running started;
      started.index = index;
      std::string error;
      if (!spawn(argv, &started, &error)) {
        ProcessResult failed;
        failed.output = error;
        failed.started_at = std::chrono::system_clock::now();
        on_done(index, std::move(failed));
        continue;
      }
      started.deadline = started.start + timeout;
      running.push_back(std::move(started));
    }
    if (running.empty()) return;
    wait_for_activity(running);
    const auto now = Clock::now();
    for (size_t i = 0; i < running.size();) {
      Running& r = running[i];
      read_some(&r);
      if (!r.exited) check_exited(&r);
      if (!r.done() && now >= r.deadline) kill_at_deadline(&r);
      if (!r.done()) {
        ++i;
        continue;
      }
      const size_t done_index = r.index;
      ProcessResult result = finish(&r);
      running.erase(running.begin() + static_cast<long>(i));
      on_done(done_index, std::move(result));
    }
  }
}

}  // namespace halo::cts
