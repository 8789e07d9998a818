//===- Ranks.h - the ranks of an MPI job and agreeing on failure -*- C++
//-*-===//
//
// What vmapc-mpi-run knows of MPI_COMM_WORLD (its rank, its node's ranks and
// their CPUs), the check of every MPI call's status, and the collective
// agreement that turns a failure on any rank into the same exit on every
// rank, with the failing ranks' messages printed once by rank 0.
//
// MPI_COMM_WORLD must have MPI_ERRORS_RETURN (main sets it), so that calls
// return their errors to checkMpi.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TOOLS_MPI_RANKS_H
#define VMAPC_TOOLS_MPI_RANKS_H

#include "vmapc/Status.h"

#include <cstddef>
#include <string>
#include <vector>

namespace vmapc::mpi {

/// The name messages start with.
inline constexpr const char *kToolName = "vmapc-mpi-run";

/// The longest message (or line) one rank sends to rank 0; the rest is cut.
inline constexpr size_t kMaxMessageBytes = 4096;

/// Checks the status `rc` of an MPI call. An error of MPI itself may leave
/// the communicator unusable (a peer that is gone, a message cut short), so
/// no agreement is attempted: the rank prints "vmapc-mpi-run: error: rank R:
/// CALL of WHAT failed: MPI's text (aborting every rank)" and calls
/// MPI_Abort, which ends every rank with a non-zero status.
void checkMpi(int rc, const char *call, const std::string &what = "");

/// This process in MPI_COMM_WORLD and on its node.
struct World {
  int rank = 0;
  int size = 1;
  /// This rank among the ranks of its node (MPI_COMM_TYPE_SHARED), in the
  /// order of their ranks.
  int localRank = 0;
  int localSize = 1;
  /// This rank's share of the hardware threads it may run on (its affinity
  /// mask, as the runtime counts them for `cpu`): the sum over its CPUs of 1
  /// / (the node's ranks that may run there), rounded down, at least 1. Ranks
  /// bound to disjoint cores keep theirs; ranks that share CPUs divide them.
  unsigned cpuShare = 1;
  /// MPI_Get_processor_name.
  std::string host;
};

/// Learns the above; a collective over MPI_COMM_WORLD.
World makeWorld();

/// Every rank calls this after a phase that can fail, with its own status:
/// a collective over MPI_COMM_WORLD (an MPI_Allreduce of an error flag and,
/// on failure, an MPI_Gatherv of the messages). Returns true when every rank
/// succeeded. Otherwise rank 0 prints each distinct message once, with the
/// ranks that gave it (and the host, for one rank) and the status code:
///   vmapc-mpi-run: error: rank 1 of 2 (node7): MESSAGE [not found]
///   vmapc-mpi-run: error: ranks 0-3, 6 of 8: MESSAGE [invalid argument]
/// and every rank gets false.
bool agree(const World &w, const Status &status);

/// Rank 0 prints "vmapc-mpi-run: LINE" for the `line` of every rank, in rank
/// order (a collective).
void printFromEveryRank(const World &w, const std::string &line);

/// "3", "0-3", "0, 2, 5-7" for sorted ranks.
std::string rankList(const std::vector<int> &ranks);

} // namespace vmapc::mpi

#endif // VMAPC_TOOLS_MPI_RANKS_H
