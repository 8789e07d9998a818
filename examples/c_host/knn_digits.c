/*===- knn_digits.c - The main job from C through the installed runtime ---===*
 *
 * 1-nearest-neighbour classification of the UCI handwritten digits (rows
 * 1000-1796 against the references in rows 0-999) with the artifact that the
 * build compiles from examples/knn_digits.arr, through the runtime's C API
 * (vmapc/vmapc_runtime.h) as an installed CMake package. Checks every answer
 * against a plain C nearest-neighbour search (squared Euclidean distance,
 * lowest index wins ties; the pixels are small integers, so every distance
 * is exact in f32), and prints the accuracy.
 *
 *   knn_digits_c ARTIFACT.vmapc DIGITS.csv
 *
 * Exit status 0 when every answer agrees, 1 otherwise or on any error.
 *
 *===----------------------------------------------------------------------===*/

#include <vmapc/vmapc_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kPixels = 64, kReferences = 1000, kMaxRows = 4096 };

/* Prints a failed status (its code and message), frees it, returns 1. */
static int fail(const char *what, vmapc_status status) {
  fprintf(stderr, "knn_digits_c: %s: %s: %s\n", what,
          vmapc_code_name(vmapc_status_code(status)),
          vmapc_status_message(status));
  vmapc_status_free(status);
  return 1;
}

/* Reads up to kMaxRows rows of 64 pixels and a label; returns the count. */
static int readDigits(const char *path, float *pixels, int *labels) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "knn_digits_c: cannot open '%s'\n", path);
    return -1;
  }
  int rows = 0;
  for (; rows < kMaxRows; ++rows) {
    int value = 0, i = 0;
    for (; i <= kPixels; ++i) {
      if (fscanf(f, i ? " ,%d" : " %d", &value) != 1)
        break;
      if (i < kPixels)
        pixels[rows * kPixels + i] = (float)value;
      else
        labels[rows] = value;
    }
    if (i == 0 && feof(f))
      break;
    if (i != kPixels + 1) {
      fprintf(stderr, "knn_digits_c: '%s': row %d is not 65 integers\n", path,
              rows + 1);
      fclose(f);
      return -1;
    }
  }
  fclose(f);
  return rows;
}

/* The dims a host passes for argument `arg` with `n` examples: its
 * per-example dims, with n inserted at its mapped axis when it is mapped
 * (vmapc_runtime.h, "Shapes"). Returns the rank. */
static size_t batchedShape(const vmapc_arg_info *arg, int64_t n,
                           int64_t *dims) {
  size_t rank = 0;
  for (size_t i = 0; i <= arg->rank; ++i) {
    if (arg->mapped_axis == (int32_t)i)
      dims[rank++] = n;
    if (i < arg->rank)
      dims[rank++] = arg->dims[i];
  }
  return rank;
}

/* The nearest reference of query `q` by a plain search. */
static int nearest(const float *pixels, int q) {
  int best = 0;
  float bestDistance = 0;
  for (int r = 0; r < kReferences; ++r) {
    float d = 0;
    for (int i = 0; i < kPixels; ++i) {
      float diff = pixels[q * kPixels + i] - pixels[r * kPixels + i];
      d += diff * diff;
    }
    if (r == 0 || d < bestDistance) {
      best = r;
      bestDistance = d;
    }
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: knn_digits_c ARTIFACT.vmapc DIGITS.csv\n");
    return 1;
  }
  static float pixels[kMaxRows * kPixels];
  static int labels[kMaxRows];
  int rows = readDigits(argv[2], pixels, labels);
  if (rows <= kReferences) {
    fprintf(stderr, "knn_digits_c: need more than %d rows\n", kReferences);
    return 1;
  }
  const int64_t numQueries = rows - kReferences;
  printf("vmapc runtime %s\n", vmapc_version());

  vmapc_device *cpu = NULL;
  vmapc_status s = vmapc_device_open("cpu", &cpu);
  if (s)
    return fail("opening the cpu", s);
  printf("device: %s\n", vmapc_device_description(cpu));
  vmapc_executable *exe = NULL;
  if ((s = vmapc_executable_load_file(cpu, argv[1], &exe)))
    return fail("loading the artifact", s);
  size_t classify = 0;
  if ((s = vmapc_find_entry(exe, "classify", &classify)))
    return fail("finding the entry", s);

  /* The shapes from the manifest: q per-example f32[64] mapped at 0 is
   * [N, 64], refs f32[1000, 64] unmapped is [1000, 64], out i32[] mapped at
   * 0 is [N]. */
  vmapc_arg_info q, refs, out;
  if ((s = vmapc_entry_arg(exe, classify, 0, 0, &q)) ||
      (s = vmapc_entry_arg(exe, classify, 0, 1, &refs)) ||
      (s = vmapc_entry_arg(exe, classify, 1, 0, &out)))
    return fail("reading the entry's arguments", s);
  int64_t qShape[8], refShape[8], outShape[8];
  if (q.rank + 1 > 8 || refs.rank + 1 > 8 || out.rank + 1 > 8) {
    fprintf(stderr, "knn_digits_c: an argument of unexpected rank\n");
    return 1;
  }
  size_t qRank = batchedShape(&q, numQueries, qShape);
  size_t refRank = batchedShape(&refs, numQueries, refShape);
  size_t outRank = batchedShape(&out, numQueries, outShape);
  printf("classify: batch %u; q mapped at %d, [%lld, %lld]; refs %s, "
         "[%lld, %lld]\n",
         (unsigned)vmapc_entry_batch_size(exe, classify), (int)q.mapped_axis,
         (long long)qShape[0], (long long)qShape[1],
         refs.mapped_axis == VMAPC_NO_AXIS ? "unmapped" : "mapped",
         (long long)refShape[0], (long long)refShape[1]);
  static int32_t predicted[kMaxRows];
  vmapc_host_array inputs[2] = {
      {pixels + kReferences * kPixels, q.dtype, qRank, qShape},
      {pixels, refs.dtype, refRank, refShape}};
  vmapc_mutable_host_array outputs[1] = {
      {predicted, out.dtype, outRank, outShape}};
  if ((s = vmapc_run(exe, classify, inputs, 2, outputs, 1)))
    return fail("running classify", s);

  /* A wrong shape is an invalid-argument error, and writes nothing. */
  const int64_t wrongShape[2] = {numQueries, kPixels + 1};
  inputs[0].shape = wrongShape;
  s = vmapc_run(exe, classify, inputs, 2, outputs, 1);
  int wrongShapeRefused = vmapc_status_code(s) == VMAPC_STATUS_INVALID_ARGUMENT;
  vmapc_status_free(s);

  int correct = 0, agree = 0;
  for (int64_t q = 0; q < numQueries; ++q) {
    int reference = nearest(pixels, kReferences + (int)q);
    agree += predicted[q] == reference;
    correct += labels[predicted[q]] == labels[kReferences + q];
  }
  vmapc_stats stats;
  vmapc_executable_stats(exe, &stats);
  printf("knn_digits_c: %lld queries, %d correct (%.2f%%), %d of %lld equal "
         "to a plain C search\n",
         (long long)numQueries, correct, 100.0 * correct / numQueries, agree,
         (long long)numQueries);
  printf("knn_digits_c: arena %llu bytes, %llu allocation(s), %llu "
         "launches; a wrong shape is %s\n",
         (unsigned long long)stats.arena_bytes,
         (unsigned long long)stats.allocations,
         (unsigned long long)stats.launches,
         wrongShapeRefused ? "refused (invalid argument)" : "NOT refused");
  vmapc_executable_release(exe);
  vmapc_device_release(cpu);
  return agree == numQueries && wrongShapeRefused ? 0 : 1;
}
