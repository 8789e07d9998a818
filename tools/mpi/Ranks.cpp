//===- Ranks.cpp - the ranks of an MPI job and agreeing on failure --------===//

#include "Ranks.h"

#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace vmapc::mpi {

/// This process's rank in MPI_COMM_WORLD, for checkMpi's messages.
static int worldRank = 0;

/// The hardware threads this process may run on, as the runtime counts them
/// for `cpu` (sched_getaffinity).
static bool affinity(cpu_set_t *set) {
  CPU_ZERO(set);
  return sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0;
}

/// Gathers one string from every rank on rank 0 (empty elsewhere), each cut
/// to kMaxMessageBytes.
static std::vector<std::string> gatherStrings(const World &w,
                                              std::string mine) {
  if (mine.size() > kMaxMessageBytes)
    mine = mine.substr(0, kMaxMessageBytes - 3) + "...";
  int length = int(mine.size());
  std::vector<int> lengths(w.rank == 0 ? size_t(w.size) : 0);
  checkMpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
                      MPI_COMM_WORLD),
           "MPI_Gather", "message lengths");
  // At most K x 4 KiB in all: int offsets hold for K up to half a million.
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(size_t(total), '\0');
  checkMpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(),
                       lengths.data(), offsets.data(), MPI_CHAR, 0,
                       MPI_COMM_WORLD),
           "MPI_Gatherv", "messages");
  std::vector<std::string> out;
  for (size_t r = 0; r < lengths.size(); ++r)
    out.push_back(all.substr(size_t(offsets[r]), size_t(lengths[r])));
  return out;
}

void checkMpi(int rc, const char *call, const std::string &what) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS)
    std::snprintf(text, sizeof text, "MPI error %d", rc);
  std::fprintf(stderr,
               "%s: error: rank %d: %s%s%s failed: %s (aborting every "
               "rank)\n",
               kToolName, worldRank, call, what.empty() ? "" : " of ",
               what.c_str(), text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1); // MPI_Abort does not return; this is for the compiler.
}

World makeWorld() {
  World w;
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank), "MPI_Comm_rank");
  worldRank = w.rank;
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &w.size), "MPI_Comm_size");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int hostLength = 0;
  checkMpi(MPI_Get_processor_name(host, &hostLength), "MPI_Get_processor_name");
  w.host.assign(host, size_t(hostLength));

  MPI_Comm local;
  checkMpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank,
                               MPI_INFO_NULL, &local),
           "MPI_Comm_split_type", "the ranks of this node");
  checkMpi(MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler");
  checkMpi(MPI_Comm_rank(local, &w.localRank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(local, &w.localSize), "MPI_Comm_size");

  // Every rank of the node learns which CPUs the others may use, so that
  // ranks bound to disjoint cores keep theirs (Open MPI binds to cores for
  // K <= 2) and ranks that share CPUs divide them.
  cpu_set_t mine;
  bool known = affinity(&mine);
  std::vector<cpu_set_t> all(size_t(w.localSize));
  checkMpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine,
                         MPI_BYTE, local),
           "MPI_Allgather", "the CPU affinity of the node's ranks");
  checkMpi(MPI_Comm_free(&local), "MPI_Comm_free");
  if (!known) {
    unsigned hardware = std::thread::hardware_concurrency();
    w.cpuShare = std::max(1u, hardware / unsigned(w.localSize));
    return w;
  }
  double share = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mine))
      continue;
    int users = 0;
    for (const cpu_set_t &other : all)
      users += CPU_ISSET(cpu, &other) ? 1 : 0;
    share += 1.0 / std::max(users, 1);
  }
  w.cpuShare = std::max(1u, unsigned(share + 1e-9));
  return w;
}

std::string rankList(const std::vector<int> &ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i)
      s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

bool agree(const World &w, const Status &status) {
  int failed = status.ok() ? 0 : 1;
  int anyFailed = 0;
  checkMpi(
      MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
      "MPI_Allreduce", "the error flags");
  if (!anyFailed)
    return true;
  // A failing rank sends "HOST\nMESSAGE [CODE]"; the others nothing.
  std::string record;
  if (!status.ok())
    record = w.host + '\n' + status.message() + " [" +
             vmapc::statusCodeName(status.code()) + "]";
  std::vector<std::string> records = gatherStrings(w, record);
  if (w.rank != 0)
    return false;
  auto text = [&](size_t r) {
    return records[r].substr(records[r].find('\n') + 1);
  };
  std::vector<bool> printed(records.size());
  for (size_t r = 0; r < records.size(); ++r) {
    if (records[r].empty() || printed[r])
      continue;
    std::vector<int> ranks;
    for (size_t s = r; s < records.size(); ++s)
      if (!records[s].empty() && !printed[s] && text(s) == text(r)) {
        printed[s] = true;
        ranks.push_back(int(s));
      }
    std::string who =
        ranks.size() == 1
            ? "rank " + std::to_string(r) + " of " + std::to_string(w.size) +
                  " (" + records[r].substr(0, records[r].find('\n')) + ")"
            : "ranks " + rankList(ranks) + " of " + std::to_string(w.size);
    std::fprintf(stderr, "%s: error: %s: %s\n", kToolName, who.c_str(),
                 text(r).c_str());
  }
  std::fflush(stderr);
  return false;
}

void printFromEveryRank(const World &w, const std::string &line) {
  std::vector<std::string> lines = gatherStrings(w, line);
  for (const std::string &l : lines)
    std::fprintf(stderr, "%s: %s\n", kToolName, l.c_str());
  std::fflush(stderr);
}

} // namespace vmapc::mpi
