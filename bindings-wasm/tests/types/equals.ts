/** `true` when A and B are the same type (not merely assignable either way), else `false`. */
export type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
