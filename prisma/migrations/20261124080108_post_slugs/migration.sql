-- AlterTable
-- Hand-edited: the engine adds the column NOT NULL at once, which fails on a table that has posts.
-- It is added empty, filled at the end of this file, then made NOT NULL.
ALTER TABLE "posts" ADD COLUMN     "slug" VARCHAR(80);

-- CreateTable
CREATE TABLE "post_slugs" (
    "slug" VARCHAR(80) NOT NULL,
    "post_id" UUID NOT NULL,
    "stem" VARCHAR(80) NOT NULL,
    "suffix" INTEGER NOT NULL,
    "used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "post_slugs_pkey" PRIMARY KEY ("slug")
);

-- CreateIndex
CREATE INDEX "post_slugs_post_id_used_at_idx" ON "post_slugs"("post_id", "used_at");

-- CreateIndex
CREATE INDEX "post_slugs_stem_suffix_idx" ON "post_slugs"("stem", "suffix");

-- AddForeignKey
ALTER TABLE "post_slugs" ADD CONSTRAINT "post_slugs_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Everything below is hand-written: data, functions and triggers, which schema.prisma cannot
-- express. It gives every existing post a slug, and keeps giving one to the posts an instance of
-- the previous release writes during a rolling upgrade (that release knows no slugs).

-- The slug a title yields, as slugOfTitle (src/content/post-slugs.ts) derives it but without the
-- transliteration of non-Latin scripts, which lives in JavaScript: accents dropped (NFKD, the
-- server encoding being UTF8), ß æ œ ø đ ð þ ł ı spelled out, anything but a-z and 0-9 one hyphen,
-- cut to 60 characters at the last hyphen when that is past the 30th (cutSlug); a title that
-- leaves nothing gets post- and the first 8 hex digits of the SHA-256 of its UTF-8 bytes.
CREATE FUNCTION post_slug_of_title(title TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE WHEN cut = '' THEN 'post-' || left(encode(sha256(convert_to(title, 'UTF8')), 'hex'), 8) ELSE cut END
  FROM (
    SELECT CASE
      WHEN length(slug) <= 60 THEN slug
      WHEN strpos(left(slug, 61), '-') > 0 AND 61 - strpos(reverse(left(slug, 61)), '-') >= 30
        THEN left(slug, 61 - strpos(reverse(left(slug, 61)), '-'))
      ELSE rtrim(left(slug, 60), '-')
    END AS cut
    FROM (
      SELECT trim(BOTH '-' FROM regexp_replace(lower(spelled), '[^a-z0-9]+', '-', 'g')) AS slug
      FROM (
        SELECT translate(
          replace(replace(replace(replace(replace(replace(replace(replace(
            regexp_replace(normalize(title, NFKD), '[\u0300-\u036f]', '', 'g'),
            'ß', 'ss'), 'ẞ', 'ss'), 'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), 'þ', 'th'), 'Þ', 'th'),
          'øØđĐðÐłŁı', 'ooddddlli') AS spelled
      ) spelled
    ) slug
  ) cut
$$;

-- A slug less a trailing -<number> (1 to 9 digits, no leading zero), and that number (1 when
-- there is none): stemmed() in src/content/post-slugs.ts.
CREATE FUNCTION post_slug_stem(slug TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT coalesce(substring(slug FROM '^(.+)-[1-9][0-9]{0,8}$'), slug)
$$;
CREATE FUNCTION post_slug_suffix(slug TEXT) RETURNS INTEGER LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT coalesce(substring(slug FROM '^.+-([1-9][0-9]{0,8})$')::INTEGER, 1)
$$;

-- Gives the post the slug `base`, or when that is taken the number after the highest in use on it,
-- as claimFirstSlug (src/content/post-slugs.ts) does for a derived slug; returns the slug.
CREATE FUNCTION post_slug_claim(post UUID, base TEXT) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  candidate TEXT := base;
BEGIN
  FOR attempt IN 1..20 LOOP
    INSERT INTO post_slugs (slug, post_id, stem, suffix)
    VALUES (candidate, post, post_slug_stem(candidate), post_slug_suffix(candidate))
    ON CONFLICT (slug) DO NOTHING;
    IF FOUND THEN
      RETURN candidate;
    END IF;
    candidate := base || '-' || (coalesce((SELECT max(suffix) FROM post_slugs WHERE stem = base), 1) + 1);
  END LOOP;
  RAISE EXCEPTION 'no free slug on %', base;
END
$$;

-- Posts written by the previous release: an empty slug passes NOT NULL, and the post then gets its
-- slug as the backfill below gave the others. This release always writes one.
CREATE FUNCTION post_slug_placeholder() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  NEW.slug := coalesce(NEW.slug, '');
  RETURN NEW;
END
$$;
CREATE FUNCTION post_slug_for_previous_release() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  UPDATE posts SET slug = post_slug_claim(NEW.id, post_slug_of_title(NEW.title)) WHERE id = NEW.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER post_slug_placeholder BEFORE INSERT ON posts
  FOR EACH ROW WHEN (NEW.slug IS NULL) EXECUTE FUNCTION post_slug_placeholder();
CREATE TRIGGER post_slug_for_previous_release AFTER INSERT ON posts
  FOR EACH ROW WHEN (NEW.slug = '') EXECUTE FUNCTION post_slug_for_previous_release();

-- The backfill, deterministic: posts whose titles yield the same slug are numbered in order of
-- creation (then id), the first keeping it, the next getting -2, -3, …, in one statement. Where a
-- numbered slug is also another title's own (a second "Hello" and a post titled "Hello 2"), the
-- posts of both titles are given theirs one at a time instead, in order of creation, by
-- post_slug_claim: as if they had been written one after the other by this release.
CREATE TEMP TABLE post_slug_backfill AS
  SELECT id, created_at, base, CASE WHEN n = 1 THEN base ELSE base || '-' || n END AS candidate
  FROM (
    SELECT id, created_at, base, row_number() OVER (PARTITION BY base ORDER BY created_at, id) AS n
    FROM (SELECT id, created_at, post_slug_of_title(title) AS base FROM posts) titled
  ) ranked;
CREATE TEMP TABLE post_slug_backfill_shared AS
  SELECT DISTINCT base FROM post_slug_backfill
  WHERE candidate IN (SELECT candidate FROM post_slug_backfill GROUP BY candidate HAVING count(*) > 1);
INSERT INTO post_slugs (slug, post_id, stem, suffix)
SELECT candidate, id, post_slug_stem(candidate), post_slug_suffix(candidate)
FROM post_slug_backfill b
WHERE NOT EXISTS (SELECT 1 FROM post_slug_backfill_shared s WHERE s.base = b.base);
DO $$
DECLARE
  post RECORD;
BEGIN
  FOR post IN
    SELECT b.id, b.base FROM post_slug_backfill b JOIN post_slug_backfill_shared s ON s.base = b.base
    ORDER BY b.created_at, b.id
  LOOP
    PERFORM post_slug_claim(post.id, post.base);
  END LOOP;
END
$$;
UPDATE posts p SET slug = s.slug FROM post_slugs s WHERE s.post_id = p.id;
DROP TABLE post_slug_backfill, post_slug_backfill_shared;

ALTER TABLE "posts" ALTER COLUMN "slug" SET NOT NULL;
