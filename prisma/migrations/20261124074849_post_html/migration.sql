-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "html" TEXT;

-- CreateTable
CREATE TABLE "post_html_pending" (
    "post_id" UUID NOT NULL,

    CONSTRAINT "post_html_pending_pkey" PRIMARY KEY ("post_id")
);

-- AddForeignKey
ALTER TABLE "post_html_pending" ADD CONSTRAINT "post_html_pending_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand below: the engine cannot express data or triggers. A post's html is rendered in
-- JavaScript (markdown-it, src/content/html), which SQL cannot run; these name the posts the
-- render-posts job (src/jobs/render-posts.ts) is to render, so that it reads a short list instead
-- of scanning every post.

-- Every post written before this migration.
INSERT INTO "post_html_pending" ("post_id") SELECT "id" FROM "posts";

-- A post's html is the rendering of its body, or null. An edit of the body that leaves html as it
-- was comes from a writer that does not render (the release before this one during a rolling
-- upgrade, or SQL by hand): its html no longer matches, so it is dropped and rendered again. This
-- release writes html with every body (src/content/posts.ts).
CREATE FUNCTION "posts_html_stale"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."html" := NULL;
  RETURN NEW;
END
$$;

CREATE TRIGGER "posts_html_stale" BEFORE UPDATE OF "body" ON "posts"
  FOR EACH ROW WHEN (NEW."body" IS DISTINCT FROM OLD."body" AND NEW."html" IS NOT DISTINCT FROM OLD."html")
  EXECUTE FUNCTION "posts_html_stale"();

-- A post left without html is queued for the job.
CREATE FUNCTION "posts_html_pending"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "post_html_pending" ("post_id") VALUES (NEW."id") ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "posts_html_pending" AFTER INSERT OR UPDATE OF "body", "html" ON "posts"
  FOR EACH ROW WHEN (NEW."html" IS NULL)
  EXECUTE FUNCTION "posts_html_pending"();
