// drizzle-kit's configuration for the schema tools' check (`drizzle-kit push`
// and `drizzle-kit pull` in the suite's application directory): the recipe's
// (drizzle/drizzle.config.js, copied beside this one as
// drizzle-recipe.config.js: the database from SF_SOCKDIR, SF_PORT, SF_DB),
// with the check's schema and the directory pull writes to.
module.exports = {
    ...require('./drizzle-recipe.config.js'),
    schema: './drizzle_schema.js',
    out: './drizzle',
};
