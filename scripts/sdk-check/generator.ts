// What the SDK check needs to know of each generator.
export interface Generator {
  /** As the check reports it. */
  name: string
  /** Its journey under journeys/, and the folder of its output under the check's work folder. */
  key: string
  /** Writes the client for the OpenAPI document at `spec` into `dir`; `serverUrl` is for a
   *  generator that builds the server's address into its client. */
  generate(spec: string, dir: string, serverUrl: string): Promise<void>
  /** The module of `dir` that client code imports types from, for the naming checks; null when every
   *  schema is a member of one `components` type, where its name never becomes a type's name. */
  module: string | null
  /** Names the generator exports of its own (its runtime, its helpers), not derived from the spec. */
  ownNames?: RegExp
  /** The names it derives from an operationId (`id`, and `Id` capitalized): exactly those, so that
   *  a name it invents for an inline schema of the operation (orval's `ListPostsStatus`) fails. */
  operationNames?: (id: string, Id: string) => RegExp
  /** The names it derives from an entry of the spec's `webhooks` (`Key`: its method and name in
   *  PascalCase, `PostPostPublished` for `post.published`'s POST), and for all of them together. */
  webhookNames?: (Key: string) => RegExp
}
