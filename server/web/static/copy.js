// Copy buttons. Without JavaScript they stay hidden and the text they copy
// stays selectable, so every page works without this file. The code blocks
// of a package's document get a copy button each, made here.
(function () {
  "use strict";

  function textOf(el) {
    return el.tagName === "INPUT" || el.tagName === "TEXTAREA" ? el.value : el.textContent;
  }

  function select(el) {
    if (el.select) {
      el.select();
      return;
    }
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  // For pages served over plain http from another host, where the
  // Clipboard API is not available.
  function copyBySelection(el) {
    select(el);
    try {
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }

  function announce(button, text) {
    var original = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", original);
    button.textContent = text;
    window.setTimeout(function () { button.textContent = original; }, 2000);
  }

  function wire(button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (target) {
      wireTo(button, target);
    }
  }

  function wireTo(button, target) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = textOf(target);
      var copied = function () { announce(button, "Copied"); };
      var failed = function () {
        if (copyBySelection(target)) {
          copied();
        } else {
          select(target);
          announce(button, "Press Ctrl+C");
        }
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(copied, failed);
      } else {
        failed();
      }
    });
  }

  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    wire(buttons[i]);
  }

  // A document's code blocks: the block moves into a box that also holds
  // its button, so the button stays in the corner when the code scrolls.
  // At most maxCodeButtons of them: a document of ten thousand one-line
  // blocks must not cost the reader's browser ten thousand buttons.
  var maxCodeButtons = 200;
  var blocks = document.querySelectorAll(".document pre");
  for (var j = 0; j < blocks.length && j < maxCodeButtons; j++) {
    var pre = blocks[j];
    var box = document.createElement("div");
    box.className = "code-box";
    pre.parentNode.insertBefore(box, pre);
    box.appendChild(pre);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button code-copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy this code");
    box.appendChild(button);
    wireTo(button, pre.querySelector("code") || pre);
  }
})();
