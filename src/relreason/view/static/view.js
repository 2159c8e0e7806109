// relreason view: a filter applies as soon as it is chosen (the form still works without this).
document.addEventListener("DOMContentLoaded", () => {
  for (const select of document.querySelectorAll("#filters select")) {
    select.addEventListener("change", () => select.form.submit());
  }
  document.body.dataset.ready = "1";
});
