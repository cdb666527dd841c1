-- A slug is claimed when its post is published (src/content/post-slugs.ts): unpublished posts keep
-- their current slug (posts.slug) but claim no row in post_slugs, so that nobody else can tell
-- from a 409 or a numbered slug that a draft has a slug. Data only: no change to the schema.
DELETE FROM post_slugs WHERE post_id IN (SELECT id FROM posts WHERE status <> 'published');
