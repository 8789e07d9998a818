// RUN: vmapc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of abs sign not maximum minimum pow and or select convert
// concat slice iota and arr.for/arr.yield, one case each.

//===----------------------------------------------------------------------===//
// ODS type constraints of the elementwise ops
//===----------------------------------------------------------------------===//

func.func @pow_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'arr.pow' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = arr.pow %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @and_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.and' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = arr.and %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @or_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'arr.or' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = arr.or %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.not' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = arr.not %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @abs_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'arr.abs' op operand #0 must be ranked tensor of 32-bit float or 32-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = arr.abs %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @sign_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'arr.sign' op operand #0 must be ranked tensor of 32-bit float or 32-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = arr.sign %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @maximum_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'arr.maximum' op operand #0 must be ranked tensor of 32-bit float or 32-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = arr.maximum %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @minimum_mixed(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.minimum' op requires the same type for all operands and results}}
  %0 = "arr.minimum"(%a, %b) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_cond_f32(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = arr.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_branch_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "arr.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_cond_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arr.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = arr.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) -> tensor<5xi32> {
  // expected-error @+1 {{'arr.convert' op all non-scalar operands/results must have the same shape and base type}}
  %0 = arr.convert %a : tensor<4xf32> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @convert_to_f64(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'arr.convert' op result #0 must be ranked tensor of 32-bit float or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = arr.convert %a : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

//===----------------------------------------------------------------------===//
// arr.concat
//===----------------------------------------------------------------------===//

func.func @concat_no_operands() -> tensor<3xf32> {
  // expected-error @+2 {{needs at least one operand}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat dim = 0 : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @concat_dim_too_large(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %a dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_dim_negative(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{dim -1 is out of range for rank 2}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %a dim = -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{dim 0 is out of range for rank 0}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %a dim = 0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @concat_dtype(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{operand 1 has type 'tensor<2x3xi32>', which differs from operand 0's dtype or rank ('tensor<2x3xf32>')}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{operand 1 has type 'tensor<3xf32>', which differs from operand 0's dtype or rank ('tensor<2x3xf32>')}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_other_dim_size(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{operand 1 has size 4 on dimension 0, operand 0 2}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_sum(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'arr.concat' op inferred type(s) 'tensor<2x7xf32>' are incompatible with return type(s) of operation 'tensor<2x8xf32>'}}
  // expected-error @+1 {{'arr.concat' op failed to infer returned types}}
  %0 = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// arr.slice
//===----------------------------------------------------------------------===//

func.func @slice_dtype(%a: tensor<8xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{element types of operand and result differ}}
  %0 = arr.slice %a, start = [0], stride = [2] : (tensor<8xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @slice_start_count(%a: tensor<8x6xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{needs one start and one stride per dimension of the operand and a result of the same rank}}
  %0 = arr.slice %a, start = [0], stride = [2, 2] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_stride_count(%a: tensor<8x6xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{needs one start and one stride per dimension of the operand and a result of the same rank}}
  %0 = arr.slice %a, start = [0, 0], stride = [2, 2, 1] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_result_rank(%a: tensor<8x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs one start and one stride per dimension of the operand and a result of the same rank}}
  %0 = arr.slice %a, start = [0, 0], stride = [2, 1] : (tensor<8x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_stride_zero(%a: tensor<8x6xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{stride of dimension 1 is 0}}
  %0 = arr.slice %a, start = [0, 0], stride = [2, 0] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// An empty result dimension is valid (a batch of 0 examples) and reads
// nothing, but its start must still be in bounds.
func.func @slice_empty_out_of_bounds(%a: tensor<8x0xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{dimension 0 reads indices 7 to 9, outside [0, 8)}}
  %0 = arr.slice %a, start = [7, 0], stride = [2, 1] : (tensor<8x0xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

func.func @slice_overflow(%a: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{dimension 0: start + stride * (size - 1) overflows}}
  %0 = arr.slice %a, start = [0], stride = [4611686018427387904] : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @for_negative_trip_count(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'arr.for' op trip_count must be in [0, 2147483647]}}
  %r = arr.for -1 iter_args(%a : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<f32>):
    arr.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @slice_past_end(%a: tensor<8xf32>) -> tensor<5xf32> {
  // x[0:10:2] would read 0, 2, 4, 6, 8.
  // expected-error @+1 {{dimension 0 reads indices 0 to 8, outside [0, 8)}}
  %0 = arr.slice %a, start = [0], stride = [2] : (tensor<8xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_start_past_end(%a: tensor<8xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{dimension 0 reads indices 8 to 8, outside [0, 8)}}
  %0 = arr.slice %a, start = [8], stride = [1] : (tensor<8xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @slice_negative_start(%a: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{dimension 0 reads indices -1 to 1, outside [0, 8)}}
  %0 = arr.slice %a, start = [-1], stride = [2] : (tensor<8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_negative_stride_before_start(%a: tensor<8x6xf32>) -> tensor<8x3xf32> {
  // Dimension 1: 4, 2, 0 are in bounds; 3 elements from 3 by -2 reach -1.
  // expected-error @+1 {{dimension 1 reads indices 3 to -1, outside [0, 6)}}
  %0 = arr.slice %a, start = [0, 3], stride = [1, -2] : (tensor<8x6xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @slice_negative_stride_start_past_end(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dimension 0 reads indices 8 to 1, outside [0, 8)}}
  %0 = arr.slice %a, start = [8], stride = [-1] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// arr.iota
//===----------------------------------------------------------------------===//

func.func @iota_dim(%a: tensor<5xi32>) -> tensor<5xi32> {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0 = arr.iota dim = 1 : tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @iota_negative_dim() -> tensor<5x2xf32> {
  // The message prints the dim as unsigned (getDim() is a uint64_t).
  // expected-error @+1 {{is out of range for rank 2}}
  %0 = arr.iota dim = -1 : tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @iota_scalar() -> tensor<i32> {
  // expected-error @+1 {{dim 0 is out of range for rank 0}}
  %0 = arr.iota dim = 0 : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @iota_bool() -> tensor<5xi1> {
  // expected-error @+1 {{'arr.iota' op result #0 must be ranked tensor of 32-bit float or 32-bit signless integer values, but got 'tensor<5xi1>'}}
  %0 = arr.iota dim = 0 : tensor<5xi1>
  return %0 : tensor<5xi1>
}

// -----

//===----------------------------------------------------------------------===//
// arr.for / arr.yield
//===----------------------------------------------------------------------===//

func.func @for_result_types(%a: tensor<3xf32>) -> tensor<3xi32> {
  // expected-error @+2 {{'arr.for' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{'arr.for' op failed to infer returned types}}
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xi32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    %y = arr.convert %x : tensor<3xf32> -> tensor<3xi32>
    arr.yield %y : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// -----

func.func @for_too_few_block_args(%w: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.for' op body must have 3 arguments (index, consts, carries), has 2}}
  %r = arr.for 2 consts(%w : tensor<3xf32>) iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    arr.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_no_index_arg(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.for' op body must have 2 arguments (index, consts, carries), has 1}}
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%x: tensor<3xf32>):
    arr.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_index_type(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.for' op the body's first argument (the index) must be 'tensor<i32>'}}
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: index, %x: tensor<3xf32>):
    arr.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_index_i64(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.for' op the body's first argument (the index) must be 'tensor<i32>'}}
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<1xi32>, %x: tensor<3xf32>):
    arr.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_const_type(%w: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.for' op const 0 has type 'tensor<3xf32>' but its body argument 'tensor<3xi32>'}}
  %r = arr.for 2 consts(%w : tensor<3xf32>) iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xi32>, %x: tensor<3xf32>):
    arr.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_carry_type(%a: tensor<3xf32>, %b: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  // expected-error @+1 {{'arr.for' op carry 1 has type 'tensor<f32>' but its body argument 'tensor<1xf32>'}}
  %r:2 = arr.for 2 iter_args(%a, %b : tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>, %y: tensor<1xf32>):
    arr.yield %x, %y : tensor<3xf32>, tensor<1xf32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<f32>
}

// -----

func.func @for_yield_type(%a: tensor<3xf32>) -> tensor<3xf32> {
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    %y = arr.convert %x : tensor<3xf32> -> tensor<3xi32>
    // expected-error @+1 {{'arr.yield' op must yield one value per carry, of the carry's type}}
    arr.yield %y : tensor<3xi32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_yield_count(%a: tensor<3xf32>) -> tensor<3xf32> {
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    // expected-error @+1 {{'arr.yield' op must yield one value per carry, of the carry's type}}
    arr.yield %x, %x : tensor<3xf32>, tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_yield_nothing(%a: tensor<i32>) -> tensor<i32> {
  // A yield may not drop its value.
  %r = arr.for 2 iter_args(%a : tensor<i32>) -> (tensor<i32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<i32>):
    // expected-error @+1 {{'arr.yield' op must yield one value per carry, of the carry's type}}
    arr.yield
  }
  return %r : tensor<i32>
}

// -----

func.func @for_reads_from_above(%a: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = arr.for 2 iter_args(%a : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    // expected-error @+1 {{'arr.add' op using value defined outside the region}}
    %y = arr.add %x, %w : tensor<3xf32>
    arr.yield %y : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @yield_outside_for(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr.yield' op expects parent op 'arr.for'}}
  arr.yield %a : tensor<3xf32>
}
