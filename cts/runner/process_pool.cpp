#include "process_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace halo::cts {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  size_t index;
  pid_t pid;
  int fd;  // Read end of the child's stdout+stderr pipe.
  Clock::time_point start;
  ProcessResult result;
  bool eof = false;
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
  out->pid = pid;
  out->fd = pipe_fds[0];
  out->start = Clock::now();
  return true;
}

void drain(Running* running) {
  char buffer[4096];
  for (;;) {
    ssize_t n = read(running->fd, buffer, sizeof(buffer));
    if (n > 0) {
      running->result.output.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) running->eof = true;
    return;  // EOF, or EAGAIN when called after poll said readable once.
  }
}

void finish(Running* running) {
  int status = 0;
  while (waitpid(running->pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (running->fd >= 0) close(running->fd);
  running->result.duration_s =
      std::chrono::duration<double>(Clock::now() - running->start).count();
  if (WIFEXITED(status)) running->result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !running->result.timed_out) {
    running->result.signal = WTERMSIG(status);
  }
}

}  // namespace

void run_processes(const std::vector<std::vector<std::string>>& commands,
                   int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done) {
  if (jobs < 1) jobs = 1;
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(timeout_s));
  std::vector<Running> running;
  size_t next = 0;
  while (next < commands.size() || !running.empty()) {
    while (next < commands.size() && running.size() < static_cast<size_t>(jobs)) {
      Running started{next, 0, -1, Clock::now(), {}, false};
      std::string error;
      if (!spawn(commands[next], &started, &error)) {
        ProcessResult failed;
        failed.output = error;
        on_done(next++, std::move(failed));
        continue;
      }
      fcntl(started.fd, F_SETFL, O_NONBLOCK);
      running.push_back(std::move(started));
      ++next;
    }
    std::vector<pollfd> fds;
    for (auto& r : running) fds.push_back({r.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 50);
    const auto now = Clock::now();
    for (size_t i = 0; i < running.size();) {
      Running& r = running[i];
      drain(&r);
      if (!r.eof && now - r.start > timeout) {
        r.result.timed_out = true;
        kill(-r.pid, SIGKILL);  // The whole group: helpers the case started too.
        kill(r.pid, SIGKILL);
        r.eof = true;
      }
      if (!r.eof) {
        ++i;
        continue;
      }
      finish(&r);
      ProcessResult result = std::move(r.result);
      size_t index = r.index;
      running.erase(running.begin() + static_cast<long>(i));
      on_done(index, std::move(result));
    }
  }
}

}  // namespace halo::cts
