exports.handler = (req, res) => {
  res.end("ok");
};
