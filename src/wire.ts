// A resource as the server writes it: every property the spec documents is present, even those
// the spec marks optional (optional only so that clients of an older release keep working). A view
// typed `Wire<Post>` that leaves a property out fails the type-check instead of sending less.
// Arrays and nested objects are held to the same rule; null stays null.
export type Wire<T> = T extends readonly (infer Item)[]
  ? Wire<Item>[]
  : T extends object
    ? { [Key in keyof T]-?: Wire<T[Key]> }
    : T

type Twice<Listed> = Listed extends readonly [infer Head, ...infer Rest]
  ? (Head extends Rest[number] ? Head : never) | Twice<Rest>
  : never

/**
 * `true` when `Listed` names every key of `T` once; otherwise what is wrong, which
 * `AssertTrue` then shows in the type error.
 */
export type ListsEveryKeyOnce<T, Listed extends readonly (keyof T)[]> = [
  Exclude<keyof T, Listed[number]> | Twice<Listed>,
] extends [never]
  ? true
  : { missing: Exclude<keyof T, Listed[number]>; twice: Twice<Listed> }

/** A compile-time check: `AssertTrue<X>` is a type error unless X is `true`. */
export type AssertTrue<Check extends true> = Check
